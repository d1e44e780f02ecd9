// Command kafkad starts and stops the local Kafka broker of the integration tests outside of Go
// tests: make kafka-up and make kafka-down run it, and make test runs the whole suite between the
// two with KAFKA_BROKERS set to the address that up prints.
//
//	kafkad up [-owner PID] [-timeout 2m]   start the broker detached; print its bootstrap address
//	kafkad down                            stop it (SIGTERM, then SIGKILL, of its process group)
//	kafkad status                          print the address and pid; exit 1 when not running
//	kafkad addr                            print only the address; exit 1 when not running
//
// up writes the address, pid and paths to <cache>/state (default .cache/kafka/state) and keeps the
// broker's files in <cache>/run. With -owner, a watcher process stops the broker as soon as the
// owner process (make's recipe shell) is gone, even when that shell was killed outright.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/paysession/paysession/integration/harness"
)

const usage = "usage: kafkad up [-owner PID] [-timeout D] | down | status | addr"

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(logger, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "kafkad:", err)
		os.Exit(1)
	}
}

func run(logger *slog.Logger, args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cache, err := harness.CacheDir()
	if err != nil {
		return err
	}
	paths := statePaths{state: filepath.Join(cache, "state"), run: filepath.Join(cache, "run")}
	fs := flag.NewFlagSet("kafkad "+args[0], flag.ContinueOnError)
	switch args[0] {
	case "up":
		owner := fs.Int("owner", 0, "pid whose death stops the broker (0: none)")
		timeout := fs.Duration("timeout", 2*time.Minute, "readiness timeout")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return up(logger, paths, *owner, *timeout)
	case "down":
		return down(logger, paths)
	case "status", "addr":
		st, err := readState(paths.state)
		if err != nil || !harness.IsBrokerProcess(st.pid) {
			fmt.Fprintln(os.Stderr, "kafkad: no broker running")
			os.Exit(1)
		}
		if args[0] == "addr" {
			fmt.Println(st.addr)
		} else {
			fmt.Printf("running addr=%s pid=%d log=%s\n", st.addr, st.pid, st.log)
		}
		return nil
	case "watch":
		owner := fs.Int("owner", 0, "pid to watch")
		broker := fs.Int("broker", 0, "broker pid (process group) to stop when the owner is gone")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return watch(*owner, *broker)
	default:
		return errors.New(usage)
	}
}

// up starts a fresh broker unless one from an earlier up is still running, which it reuses.
func up(logger *slog.Logger, paths statePaths, owner int, timeout time.Duration) error {
	if st, err := readState(paths.state); err == nil && harness.IsBrokerProcess(st.pid) {
		logger.Info("broker already running", slog.String("addr", st.addr), slog.Int("pid", st.pid))
		fmt.Println(st.addr)
		return nil
	}
	if err := os.RemoveAll(paths.run); err != nil {
		return err
	}
	// An interrupt while the broker starts must not leave it behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, err := harness.StartBroker(ctx, harness.BrokerConfig{
		Dir: paths.run, Detached: true, StartTimeout: timeout, Logger: logger,
	})
	if err != nil {
		return err
	}
	st := state{addr: b.Addr(), pid: b.Pid(), dir: b.Dir(), log: b.LogPath()}
	if err := writeState(paths.state, st); err != nil {
		_ = b.Stop()
		return err
	}
	if owner > 0 {
		if err := startWatcher(owner, st.pid); err != nil {
			_ = b.Stop()
			return err
		}
	}
	logger.Info("broker up", slog.String("addr", st.addr), slog.Int("pid", st.pid), slog.String("log", st.log))
	fmt.Println(st.addr)
	return nil
}

// down stops the broker named in the state file; nothing running is not an error.
func down(logger *slog.Logger, paths statePaths) error {
	st, err := readState(paths.state)
	if errors.Is(err, os.ErrNotExist) {
		logger.Info("no broker state: nothing to stop")
		return nil
	}
	if err != nil {
		return err
	}
	if harness.IsBrokerProcess(st.pid) {
		if err := harness.StopProcessGroup(st.pid, 30*time.Second); err != nil {
			return err
		}
		logger.Info("broker stopped", slog.Int("pid", st.pid))
	}
	if err := os.Remove(paths.state); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.RemoveAll(paths.run)
}

// startWatcher runs "kafkad watch" detached, in its own process group so that a signal to the
// caller's group (Ctrl-C, a CI timeout) does not reach it.
func startWatcher(owner, broker int) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	defer null.Close()
	p, err := os.StartProcess(self, []string{self, "watch", "-owner", fmt.Sprint(owner), "-broker", fmt.Sprint(broker)},
		&os.ProcAttr{Files: []*os.File{null, null, null}, Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	return p.Release()
}

// watch stops the broker's process group once owner has exited, and returns when the broker is gone.
func watch(owner, broker int) error {
	for harness.IsBrokerProcess(broker) {
		if !harness.ProcessAlive(owner) {
			return harness.StopProcessGroup(broker, 30*time.Second)
		}
		time.Sleep(time.Second) // another process's exit cannot be awaited: poll it
	}
	return nil
}
