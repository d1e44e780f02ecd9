package harness

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestBackgroundStopsAndReports(t *testing.T) {
	started := make(chan struct{})
	stop := Background(t, "worker", func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return errors.New("worker failed")
	})
	<-started
	if err := stop(); err == nil || err.Error() != "worker failed" {
		t.Fatalf("stop() = %v; want the run's error", err)
	}
	if err := stop(); err == nil || err.Error() != "worker failed" {
		t.Fatalf("second stop() = %v; want the same error", err)
	}
	// The test called stop: the cleanup must not report the error again,
	// else this test would fail.
}

func TestBackgroundCleanupReports(t *testing.T) {
	ft := &fakeTB{TB: t}
	Background(ft, "worker", func(ctx context.Context) error {
		<-ctx.Done()
		return errors.New("worker failed")
	})
	ft.cleanup()
	if len(ft.errs) != 1 || ft.errs[0] != "worker: worker failed" {
		t.Fatalf("cleanup reported %q; want one error naming the worker", ft.errs)
	}
}

// fakeTB records cleanups and errors instead of acting on them.
type fakeTB struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) cleanup() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}
