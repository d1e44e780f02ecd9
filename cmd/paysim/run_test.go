package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHelpListsEveryFlag(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"-help"}, &out); code != 0 {
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
	if code := run(context.Background(), nil, &out); code != 2 || !strings.Contains(out.String(), "-dev-keys") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

func TestDevModeWritesKeysAndServes(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan int, 1)
	var out bytes.Buffer
	go func() { done <- run(ctx, []string{"-dev-keys", dir, "-listen", "127.0.0.1:0"}, &out) }()
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
