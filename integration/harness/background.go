package harness

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// stopWithin bounds how long a stopped component may take to return.
const stopWithin = 30 * time.Second

// Background runs run(ctx) in a goroutine until stop is called or the test
// ends. stop cancels ctx and returns run's error, or an error when run does
// not return within 30 s; calling it again returns the same. When the test
// ends without having called stop, the cleanup stops run and reports its
// error, naming it what.
func Background(t testing.TB, what string, run func(context.Context) error) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var (
		once   sync.Once
		err    error
		mu     sync.Mutex
		called bool // the test called stop: it handles the error
	)
	end := func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(stopWithin):
				err = fmt.Errorf("%s did not return within %s of its stop", what, stopWithin)
			}
		})
		return err
	}
	t.Cleanup(func() {
		mu.Lock()
		report := !called
		mu.Unlock()
		if err := end(); err != nil && report {
			t.Errorf("%s: %v", what, err)
		}
	})
	return func() error {
		mu.Lock()
		called = true
		mu.Unlock()
		return end()
	}
}
