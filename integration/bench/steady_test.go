package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// TestSteadyBrokerBringsAFreshBrokerToItsSteadyState starts a broker as
// the bench does (1 GiB, GC log) and checks that steadyBroker returns only
// once the broker has made its first young collections, which a fresh
// broker has not.
func TestSteadyBrokerBringsAFreshBrokerToItsSteadyState(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker of its own")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	e := &env{gcLog: filepath.Join(dir, "broker-gc.log")}
	b, err := harness.StartBroker(ctx, harness.BrokerConfig{Dir: filepath.Join(dir, "kafka"),
		Heap: brokerHeap, InitialHeap: brokerHeap, JVMArgs: brokerGCLogArgs(e.gcLog)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Stop() })
	e.brokers = []string{b.Addr()}
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	e.admin = kadm.NewClient(cl)

	pauses, err := readGCPauses(e.gcLog)
	if err != nil {
		t.Fatal(err)
	}
	if n := youngCollections(pauses); n >= brokerSteadyAfter {
		t.Fatalf("a fresh broker has made %d young collections already; the test shows nothing", n)
	}
	if err := e.steadyBroker(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if pauses, err = readGCPauses(e.gcLog); err != nil {
		t.Fatal(err)
	}
	if n := youngCollections(pauses); n < brokerSteadyAfter {
		t.Errorf("after steadyBroker the broker has made %d young collections, want at least %d", n, brokerSteadyAfter)
	}
	if len(e.topics) != 1 {
		t.Errorf("topics to delete at the end: %v; want the warm-up's one", e.topics)
	}
}
