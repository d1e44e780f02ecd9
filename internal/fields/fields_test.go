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

// TestErrorsList: List gives each failure, in order, as Err joins them.
func TestErrorsList(t *testing.T) {
	var e Errors
	if e.List() != nil || e.Err() != nil {
		t.Fatal("a fresh Errors has failures")
	}
	e.Add("A", "bad %d", 1)
	e.Add("B", "worse")
	l := e.List()
	if len(l) != 2 || l[0].Error() != "A: bad 1" || l[1].Error() != "B: worse" || e.Err().Error() != "A: bad 1\nB: worse" {
		t.Fatalf("List = %v, Err = %v", l, e.Err())
	}
}
