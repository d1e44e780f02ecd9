package pipeline_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/connector/redrive"
	"github.com/paysession/paysession/internal/codec"
)

// outcomes reads the outcome topics with read_committed in the background
// and indexes what arrived.
type outcomes struct {
	mu       sync.Mutex
	cond     *sync.Cond
	results  map[string][]codec.CommandResult // by idempotency key
	sessions map[string][]codec.SessionState  // by session id
	dead     map[string][]*kgo.Record         // by original key
	total    int
}

func readOutcomes(t *testing.T, seeds []string, topics pipeline.Topics) *outcomes {
	t.Helper()
	o := &outcomes{results: map[string][]codec.CommandResult{}, sessions: map[string][]codec.SessionState{},
		dead: map[string][]*kgo.Record{}}
	o.cond = sync.NewCond(&o.mu)
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...),
		kgo.ConsumeTopics(topics.Results, topics.SessionUpdates, topics.DeadLetter),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			o.mu.Lock()
			fs.EachRecord(func(r *kgo.Record) { o.add(t, topics, r) })
			o.cond.Broadcast()
			o.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cl.Close() })
	return o
}

func (o *outcomes) add(t *testing.T, topics pipeline.Topics, r *kgo.Record) {
	if r.Topic != topics.DeadLetter { // dead letters carry the original bytes by design
		for _, pan := range []string{cardSuccess, cardHold, cardConfirm} {
			if bytes.Contains(r.Value, []byte(pan)) {
				t.Errorf("a full card number leaked into %s", r.Topic)
			}
		}
	}
	switch r.Topic {
	case topics.Results:
		var res codec.CommandResult
		if err := decodeOutcome(r.Value, &res); err != nil {
			t.Errorf("decode result: %v", err)
			return
		}
		o.results[string(r.Key)] = append(o.results[string(r.Key)], res)
		o.total++
	case topics.SessionUpdates:
		var st codec.SessionState
		if err := decodeOutcome(r.Value, &st); err != nil {
			t.Errorf("decode session state: %v", err)
			return
		}
		o.sessions[string(r.Key)] = append(o.sessions[string(r.Key)], st)
	case topics.DeadLetter:
		if !redrive.IsMarker(r) {
			o.dead[string(r.Key)] = append(o.dead[string(r.Key)], r)
		}
	}
}

// result waits for the result of key and returns it.
func (o *outcomes) result(t *testing.T, key string, timeout time.Duration) codec.CommandResult {
	t.Helper()
	var res codec.CommandResult
	o.wait(t, timeout, "result of "+key, func() bool {
		if rs := o.results[key]; len(rs) > 0 {
			res = rs[0]
			return true
		}
		return false
	})
	return res
}

// count waits until at least n results arrived.
func (o *outcomes) count(t *testing.T, n int, timeout time.Duration) {
	t.Helper()
	o.wait(t, timeout, "results", func() bool { return o.total >= n })
}

// totalNow returns the number of results read so far.
func (o *outcomes) totalNow() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total
}

func (o *outcomes) wait(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timer := time.AfterFunc(timeout, func() { o.mu.Lock(); o.cond.Broadcast(); o.mu.Unlock() })
	defer timer.Stop()
	deadline := time.Now().Add(timeout)
	o.mu.Lock()
	defer o.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s (%d results so far)", timeout, what, o.total)
		}
		o.cond.Wait()
	}
}

// decodeOutcome decodes an outcome value written by the codec's encoder
// without a registry: Avro single-object encoding (0xC3 0x01, 8-byte
// fingerprint, Avro binary of the record's current schema).
func decodeOutcome(b []byte, v codec.Record) error {
	if len(b) < 10 || b[0] != 0xC3 || b[1] != 0x01 {
		return fmt.Errorf("not single-object encoded: % x", b[:min(len(b), 10)])
	}
	s, err := codec.Schema(v.SchemaName())
	if err != nil {
		return err
	}
	_, err = s.Decode(b[10:], v)
	return err
}
