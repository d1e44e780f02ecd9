package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"
)

// Bringing the broker to its steady state before anything is measured.
//
// With the serial collector at 1 GiB, a fresh broker's first young
// collection promotes what it allocated while starting (about 136 MB;
// 73-426 ms), and the two after it take 49-70 and 32-55 ms, against 25-36 ms
// from the fourth on (ten GC logs of session 16). Whichever phase ran while the
// broker made them met pauses no broker that has run for a minute makes:
// the default signer's paced phase, right after the throughput phase, met
// the second and third in its measured slices, where the other signer's,
// run later on the same broker, met a broker in its steady state; moving
// the paced phase last moved them into the half-max phase (p99 139 and
// 203 ms). Bursts of commands do not get the broker there: 60,000 commands
// in bursts of 2,000 left it at one young collection, since big batches
// cost it little. Small requests do: steadyBroker sends one-record
// produce requests to a topic of its own until the broker's GC log shows
// brokerSteadyAfter young collections. A side effect: the default signer's
// paced phase now starts at about the same point of the broker's
// collection cycle in every run, so where its collections fall varies
// little between runs (integration/bench/README.md).

// brokerSteadyAfter is how many young collections a broker has made when
// its collections are those of its steady state.
const brokerSteadyAfter = 3

// steadyMaxWait bounds the warm-up: a broker that collects rarely is
// measured as it is, and the paced phase reports its state.
const steadyMaxWait = 2 * time.Minute

// steadyProducers is how many one-record produce requests are in flight.
const steadyProducers = 16

// steadyBroker produces one-record batches to a topic of its own until the
// broker's GC log shows brokerSteadyAfter young collections. Without a
// readable GC log there is nothing to wait for, and it sends nothing.
func (e *env) steadyBroker(ctx context.Context, log *slog.Logger) error {
	young := func() (int, bool) {
		pauses, errText, ok := e.readBrokerPauses()
		return youngCollections(pauses), ok && errText == ""
	}
	if n, ok := young(); !ok || n >= brokerSteadyAfter {
		return nil
	}
	topic := "bench-" + randomID() + "-broker-steady"
	if err := e.createTopic(ctx, topic, 1, nil); err != nil {
		return err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers...), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(0))
	if err != nil {
		return err
	}
	defer cl.Close()

	start := time.Now()
	wctx, stop := context.WithTimeout(ctx, steadyMaxWait)
	defer stop()
	g, gctx := errgroup.WithContext(wctx)
	var sent atomic.Int64
	for range steadyProducers {
		g.Go(func() error {
			for gctx.Err() == nil {
				// A record per request: the client writes into the records it produces.
				if err := cl.ProduceSync(gctx, &kgo.Record{Value: []byte("steady")}).FirstErr(); err != nil && gctx.Err() == nil {
					return err
				}
				sent.Add(1)
			}
			return nil
		})
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	n := 0
	for gctx.Err() == nil {
		select {
		case <-tick.C:
			if n, _ = young(); n >= brokerSteadyAfter {
				stop()
			}
		case <-gctx.Done():
		}
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("bringing the broker to its steady state: %w", err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("bringing the broker to its steady state: %w", ctx.Err())
	}
	if n < brokerSteadyAfter {
		log.Warn("broker: not in its steady state after the warm-up's bound; measuring it as it is",
			"young_collections", n, "requests", sent.Load(), "seconds", time.Since(start).Seconds())
		return nil
	}
	log.Info("broker: steady", "young_collections", n, "requests", sent.Load(), "seconds", time.Since(start).Seconds())
	return nil
}

// youngCollections counts the young collections among pauses.
func youngCollections(pauses []gcPause) int {
	n := 0
	for _, p := range pauses {
		if p.young {
			n++
		}
	}
	return n
}

// brokerState says whether a broker that had made young collections before
// a phase was in its steady state.
func brokerState(young int) string {
	if young >= brokerSteadyAfter {
		return "steady"
	}
	return fmt.Sprintf("fewer than %d: still in its first collections, which are longer", brokerSteadyAfter)
}
