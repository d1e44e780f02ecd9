package codec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var digitRun = regexp.MustCompile(`\d{12,}`)

// checkDecodeError fails when err is neither a *DecodeError nor free of
// long digit runs (possible card numbers).
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T), want *DecodeError", err, err)
	}
	if digitRun.MatchString(err.Error()) {
		t.Fatalf("error message carries a long digit run: %q", err.Error())
	}
}

func FuzzDecodeCommandJSON(f *testing.F) {
	for i, k := range Kinds() {
		b, _ := json.Marshal(sampleCommands()[k])
		f.Add(uint8(i), b)
	}
	f.Add(uint8(0), []byte(`{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","x":1}}}}`))
	dec, _ := NewDecoder(DecoderConfig{})
	f.Fuzz(func(t *testing.T, k uint8, value []byte) {
		kind := Kinds()[int(k)%len(Kinds())]
		if DetectFormat(value) != FormatJSON {
			return
		}
		cmd, err := dec.Decode(context.Background(), kind.DefaultTopic(), kind, value)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if err := referenceStrictJSON(value, reflect.TypeOf(cmd)); err != nil {
			t.Fatalf("decoded a JSON command that is not strict: %v", err)
		}
		_ = cmd.Validate()
		again, err := EncodeJSON(cmd)
		if err != nil {
			return // e.g. metadata that is not one JSON document cannot come from JSON; nothing to compare
		}
		cmd2, err := dec.Decode(context.Background(), kind.DefaultTopic(), kind, again)
		if err != nil {
			t.Fatalf("re-decoding our own JSON: %v", err)
		}
		if !sameCommand(reflect.ValueOf(cmd), reflect.ValueOf(cmd2)) {
			t.Fatalf("JSON round trip changed the command:\n%#v\n%#v", cmd, cmd2)
		}
	})
}

func FuzzDecodeCommandAvro(f *testing.F) {
	for i, k := range Kinds() {
		b, _ := EncodeSingleObject(sampleCommands()[k])
		f.Add(uint8(i), b[10:])
	}
	dec, _ := NewDecoder(DecoderConfig{})
	f.Fuzz(func(t *testing.T, k uint8, body []byte) {
		kind := Kinds()[int(k)%len(Kinds())]
		hdr, _ := EncodeSingleObject(kind.New()) // header of the kind's schema
		value := append(hdr[:10:10], body...)
		cmd, err := dec.Decode(context.Background(), kind.DefaultTopic(), kind, value)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if err := referenceStrictStrings(reflect.ValueOf(cmd), ""); err != nil {
			t.Fatalf("decoded an Avro command that is not strict: %v", err)
		}
		_ = cmd.Validate()
		again, err := EncodeSingleObject(cmd)
		if err != nil {
			t.Fatalf("re-encoding a decoded command: %v", err)
		}
		cmd2, err := dec.Decode(context.Background(), kind.DefaultTopic(), kind, again)
		if err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		if !reflect.DeepEqual(cmd, cmd2) {
			t.Fatalf("Avro round trip changed the command:\n%#v\n%#v", cmd, cmd2)
		}
	})
}

// sameCommand is reflect.DeepEqual except that an empty slice equals a nil
// one: JSON commands omit empty arrays (omitempty), so "emails":[] and no
// emails are the same command.
func sameCommand(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameCommand(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameCommand(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameCommand(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// referenceStrictJSON is the fuzz targets' reference for strict JSON,
// written independently of strict_json.go on encoding/json's token stream:
// value is valid UTF-8, every member name at a place of type t is a json
// tag of t byte for byte, no object repeats a member name, and no string
// was repaired with U+FFFD (a lone surrogate escape) unless value spells
// U+FFFD itself.
func referenceStrictJSON(value []byte, t reflect.Type) error {
	if !utf8.Valid(value) {
		return errors.New("value is not valid UTF-8")
	}
	spellsFFFD := bytes.Contains(value, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(value), []byte(`\ufffd`))
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	return referenceValue(dec, t, "", spellsFFFD)
}

func referenceValue(dec *json.Decoder, t reflect.Type, path string, spellsFFFD bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		t = nil // metadata: free member names
	}
	switch tok := tok.(type) {
	case string:
		if !spellsFFFD && strings.ContainsRune(tok, utf8.RuneError) {
			return fmt.Errorf("%s: string repaired with U+FFFD", path)
		}
	case json.Delim:
		switch tok {
		case '{':
			seen := map[string]bool{}
			for dec.More() {
				nt, err := dec.Token()
				if err != nil {
					return err
				}
				name := nt.(string)
				if !spellsFFFD && strings.ContainsRune(name, utf8.RuneError) {
					return fmt.Errorf("%s: member name repaired with U+FFFD", path)
				}
				if seen[name] {
					return fmt.Errorf("%s: duplicate member %q", path, name)
				}
				seen[name] = true
				var ft reflect.Type
				if t != nil && t.Kind() == reflect.Struct {
					f, ok := referenceField(t, name)
					if !ok {
						return fmt.Errorf("%s: member %q is not a field of %s", path, name, t.Name())
					}
					ft = f
				}
				if err := referenceValue(dec, ft, path+"."+name, spellsFFFD); err != nil {
					return err
				}
			}
		case '[':
			var et reflect.Type
			if t != nil && t.Kind() == reflect.Slice {
				et = t.Elem()
			}
			for i := 0; dec.More(); i++ {
				if err := referenceValue(dec, et, fmt.Sprintf("%s[%d]", path, i), spellsFFFD); err != nil {
					return err
				}
			}
		}
		if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
	}
	return nil
}

// referenceField returns the type of t's field whose json name is name.
func referenceField(t reflect.Type, name string) (reflect.Type, bool) {
	for f := range t.Fields() {
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
			return f.Type, true
		}
	}
	return nil, false
}

// referenceStrictStrings is the Avro fuzz target's reference: every string
// reachable from v is valid UTF-8, and a metadata document that is JSON is
// strict JSON.
func referenceStrictStrings(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return referenceStrictStrings(v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			if err := referenceStrictStrings(v.Field(i), path+"."+v.Type().Field(i).Name); err != nil {
				return err
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if err := referenceStrictStrings(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.String:
		s := v.String()
		if !utf8.ValidString(s) {
			return fmt.Errorf("%s: string is not valid UTF-8", path)
		}
		if v.Type() == reflect.TypeFor[Metadata]() && json.Valid([]byte(s)) {
			if err := referenceStrictJSON([]byte(s), nil); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return nil
}
