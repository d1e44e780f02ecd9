// Command kafkactr starts and stops a single-node Kafka broker in a container, the container
// backend of the ordinary integration tests: `make test KAFKA_BACKEND=container` (or make
// integration, make faults) runs them against it instead of the local broker process, and says
// so. It uses the chaos cluster's harness (integration/harness/cluster) with one node: the same
// image (Image(): the local one, or $CHAOS_KAFKA_IMAGE) and the same refusal to start without
// TESTCONTAINERS_HOST_OVERRIDE naming a loopback address.
//
//	kafkactr up     start the node detached; print its bootstrap address
//	kafkactr down   remove it (container, network, volume)
//
// up writes the cluster's run id to <cache>/container-run (default .cache/kafka/container-run);
// down reads it. A run killed before down leaves containers labelled io.paysession.chaos, which
// make chaos removes.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/cluster"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "kafkactr:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cache, err := harness.CacheDir()
	if err != nil {
		return err
	}
	state := filepath.Join(cache, "container-run")
	if len(args) != 1 {
		return errors.New("usage: kafkactr up | down")
	}
	// An interrupt while the node starts must not leave it behind: Start removes what it made.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "up":
		ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
		defer cancel()
		logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		c, err := cluster.Start(ctx, cluster.Config{Nodes: 1, Logger: logger})
		if err != nil {
			return err
		}
		addrs := c.Brokers()
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return errors.Join(err, c.Close(context.WithoutCancel(ctx)))
		}
		if err := os.WriteFile(state, []byte(c.RunID()+"\n"), 0o644); err != nil {
			return errors.Join(err, c.Close(context.WithoutCancel(ctx)))
		}
		c.Detach()
		fmt.Fprintf(os.Stderr, "kafkactr: 1 node of %s in a container (run %s) at %s\n", cluster.Image(), c.RunID(),
			strings.Join(addrs, ","))
		fmt.Println(strings.Join(addrs, ","))
		return nil
	case "down":
		b, err := os.ReadFile(state)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := cluster.Remove(context.WithoutCancel(ctx), strings.TrimSpace(string(b))); err != nil {
			return err
		}
		return os.Remove(state)
	default:
		return errors.New("usage: kafkactr up | down")
	}
}
