package main

import (
	"reflect"
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
)

// TestKitTopicsAreTheConfigured: produce and tail see every configured
// topic name, none left at its default (a renamed session-updates topic was
// once read under its default name).
func TestKitTopicsAreTheConfigured(t *testing.T) {
	var cfg config.Topics
	cv := reflect.ValueOf(&cfg).Elem()
	for i := 0; i < cv.NumField(); i++ {
		if cv.Field(i).Kind() == reflect.String {
			cv.Field(i).SetString("custom." + cv.Type().Field(i).Name)
		}
	}
	cfg.Command = config.CommandTopics{}
	for _, k := range codec.Kinds() {
		cfg.Command[string(k)] = "custom." + string(k)
	}
	got := kitTopics(cfg)
	kv := reflect.ValueOf(got)
	for i := 0; i < kv.NumField(); i++ {
		f := kv.Type().Field(i)
		if f.Type.Kind() != reflect.String {
			continue
		}
		want := cv.FieldByName(f.Name)
		if !want.IsValid() {
			t.Errorf("kit.Topics.%s has no configuration field", f.Name)
			continue
		}
		if kv.Field(i).String() != want.String() {
			t.Errorf("kit.Topics.%s = %q; want the configured %q", f.Name, kv.Field(i).String(), want.String())
		}
	}
	for kind, topic := range cfg.Commands() {
		if got.Commands[codec.CommandKind(kind)] != topic {
			t.Errorf("command topic of %s = %q; want %q", kind, got.Commands[codec.CommandKind(kind)], topic)
		}
	}
}
