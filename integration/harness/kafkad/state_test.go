package main

import (
	"path/filepath"
	"testing"
)

func TestStateRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	want := state{addr: "127.0.0.1:9092", pid: 42, dir: "/x/run", log: "/x/run/broker.log"}
	if err := writeState(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := readState(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("readState = %+v, want %+v", got, want)
	}
}

func TestParseStateRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"no pid", "addr=127.0.0.1:1\n"},
		{"bad pid", "addr=127.0.0.1:1\npid=x\n"},
		{"negative pid", "addr=127.0.0.1:1\npid=-5\n"},
		{"no addr", "pid=7\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if st, err := parseState([]byte(tt.in)); err == nil {
				t.Fatalf("parseState(%q) = %+v, want an error", tt.in, st)
			}
		})
	}
}
