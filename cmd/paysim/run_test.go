package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHelpListsEveryFlag(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"-help"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"-listen", "-config", "-dev-keys", "-project", "-webhook-url", "-auto-confirm",
		"-confirm-above", "-processing-delay", "-latency", "-latency-jitter", "-latency-distribution",
		"-error-rate", "-drop-rate", "-webhook-refuse", "-seed", "-max-body", "-padding", "-public-url"} {
		if !strings.Contains(out.String(), f+" ") && !strings.Contains(out.String(), f+"\n") {
			t.Errorf("help lacks %s", f)
		}
	}
}

func TestNeedsProjects(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), nil, io.Discard, &out); code != 2 || !strings.Contains(out.String(), "-dev-keys") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

func TestDevModeWritesKeysAndServes(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan int, 1)
	var out bytes.Buffer
	go func() { done <- run(ctx, []string{"-dev-keys", dir, "-listen", "127.0.0.1:0"}, io.Discard, &out) }()
	deadline := time.Now().Add(8 * time.Second)
	for _, f := range []string{"partner_private.pem", "partner_public.pem", "service_private.pem", "service_public.pem"} {
		for {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not written", f)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

// TestCommandLineConvention: paysim keeps the connector's convention: the
// help, however asked, on stdout with exit 0 and nothing on stderr; a bad
// flag or an argument is one error on stderr naming it, exit 2. Before,
// the help went to stderr.
func TestCommandLineConvention(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring, "" for none
		stderr string
	}{
		{"-h", []string{"-h"}, 0, "Usage: paysim", ""},
		{"--help", []string{"--help"}, 0, "Usage: paysim", ""},
		{"-help after a flag", []string{"-seed", "2", "-help"}, 0, "Usage: paysim", ""},
		{"unknown flag", []string{"-dev-keys", "x", "-nope"}, 2, "", "-nope"},
		{"bad value", []string{"-dev-keys", "x", "-seed", "many"}, 2, "", "-seed"},
		{"argument", []string{"-dev-keys", "x", "extra"}, 2, "", `"extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), tt.args, &out, &errOut)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out.String(), errOut.String())
			}
			if tt.stdout != "" && !strings.Contains(out.String(), tt.stdout) || tt.stdout == "" && out.Len() > 0 {
				t.Errorf("stdout %q, want %q", out.String(), tt.stdout)
			}
			if tt.stderr != "" && !strings.Contains(errOut.String(), tt.stderr) || tt.stderr == "" && errOut.Len() > 0 {
				t.Errorf("stderr %q, want %q", errOut.String(), tt.stderr)
			}
		})
	}
}
