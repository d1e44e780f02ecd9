package fields

import (
	"testing"
	"time"
)

func TestDefault(t *testing.T) {
	s, d := "", 5*time.Second
	Default(&s, "x")
	Default(&d, time.Minute)
	if s != "x" || d != 5*time.Second {
		t.Fatalf("Default: s=%q d=%s; want x, 5s (a set value stays)", s, d)
	}
}

func TestErrorsNameEveryField(t *testing.T) {
	var e Errors
	if e.Err() != nil {
		t.Fatal("no failure: want nil")
	}
	e.Add("Path", "%q must start with /", "hooks")
	e.Add("Logger", "required")
	if got, want := e.Err().Error(), "Path: \"hooks\" must start with /\nLogger: required"; got != want {
		t.Fatalf("Err() = %q; want %q", got, want)
	}
}
