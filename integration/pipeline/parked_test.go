package pipeline_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
)

// parkingConfig retries for ever within a short batch deadline, so a
// command the API keeps refusing is parked, batch after batch.
func parkingConfig(c *pipeline.Config) {
	c.BatchDeadline = time.Second
	c.Retry = pipeline.RetryPolicy{Initial: 50 * time.Millisecond, Max: 200 * time.Millisecond, MaxAttempts: 1000, Budget: 5 * time.Minute}
}

// retryRecords returns every committed record of the retry topic so far.
func (e *env) retryRecords(t *testing.T) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(e.cl).ListEndOffsets(ctx, e.topics.Retry)
	if err != nil || ends.Error() != nil {
		t.Fatalf("retry end offsets: %v %v", err, ends.Error())
	}
	end, _ := ends.Lookup(e.topics.Retry, 0)
	if end.Offset == 0 {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{e.topics.Retry: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read the retry topic: %v", ctx.Err())
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if !r.Attrs.IsControl() {
				recs = append(recs, r)
			}
			done = done || r.Offset+1 >= end.Offset
		})
		if done {
			return recs
		}
	}
}

// parkedAs waits until a retry record of idempotency key k is committed.
func (e *env) parkedAs(t *testing.T, k string) {
	t.Helper()
	harness.Eventually(t, 30*time.Second, k+" parked", func() bool {
		for _, r := range e.retryRecords(t) {
			for _, h := range r.Headers {
				if h.Key == "paysession-key" && string(h.Value) == k {
					return true
				}
			}
		}
		return false
	})
}

// TestParkedCardPaymentLeavesNoCardData: a card payment the API keeps
// refusing is parked; its retry records hold neither the command nor the
// producer's headers (so no card number or security code), and once the API
// answers, the command read back from its source is accepted.
func TestParkedCardPaymentLeavesNoCardData(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayment}})
	e.start(t, parkingConfig)
	k := key("parked-card")
	e.proxy.fail(k, -1)
	rec := e.command(codec.KindInitPayment, k, initPaymentJSON(cardHold, 10000))
	rec.Headers = []kgo.RecordHeader{{Key: "x-card", Value: []byte(cardHold)}}
	e.produce(t, rec)
	e.parkedAs(t, k)
	e.proxy.fail(k, 0)
	res := e.out.result(t, k, 60*time.Second)
	if res.Status != codec.StatusAccepted || res.Attempts < 2 {
		t.Fatalf("result %s after %d attempts, want accepted after the parked ones", res.Status, res.Attempts)
	}
	recs := e.retryRecords(t)
	if len(recs) == 0 {
		t.Fatal("no retry record")
	}
	for _, r := range recs {
		if r.Value != nil {
			t.Errorf("retry record at offset %d holds a value of %d bytes, want none", r.Offset, len(r.Value))
		}
		all := [][]byte{r.Key, r.Value}
		for _, h := range r.Headers {
			all = append(all, []byte(h.Key), h.Value)
		}
		for _, b := range all {
			if bytes.Contains(b, []byte(cardHold)) || bytes.Contains(b, []byte("security_code")) || strings.Contains(string(b), cardHold[len(cardHold)-8:]) {
				t.Errorf("retry record at offset %d holds card data: %q", r.Offset, b)
			}
		}
	}
}

// TestParkedCommandWhoseSourceIsGone: a parked command whose source record
// was deleted (retention) before it came due gets one final result naming
// source_unavailable: indeterminate, since it was sent before it was
// parked; the command parked behind it in its session is never sent.
func TestParkedCommandWhoseSourceIsGone(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindCapture}})
	e.start(t, parkingConfig)
	sess := e.initPayment(t, cardHold)
	first, second := key("gone-first"), key("gone-second")
	capture := func(sessionID string) string { return fmt.Sprintf(`{"session_id":%q}`, sessionID) }
	e.proxy.fail(first, -1)
	e.produce(t, e.command(codec.KindCapture, first, capture(sess.ID)), e.command(codec.KindCapture, second, capture(sess.ID)))
	e.parkedAs(t, second)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	adm := kadm.NewClient(e.cl)
	ends, err := adm.ListEndOffsets(ctx, e.topics.Commands[codec.KindCapture])
	if err != nil || ends.Error() != nil {
		t.Fatalf("end offsets: %v %v", err, ends.Error())
	}
	del := kadm.Offsets{}
	ends.Each(func(o kadm.ListedOffset) { del.AddOffset(o.Topic, o.Partition, o.Offset, -1) })
	if res, err := adm.DeleteRecords(ctx, del); err != nil || res.Error() != nil {
		t.Fatalf("delete the command records: %v %v", err, res.Error())
	}

	for _, k := range []string{first, second} {
		res := e.out.result(t, k, 60*time.Second)
		if deref(res.ErrorCode) != "source_unavailable" || (res.Status != codec.StatusIndeterminate && res.Status != codec.StatusExpired) {
			t.Errorf("%s: result %s %s (%s), want source_unavailable, indeterminate or expired", k, res.Status, deref(res.ErrorCode), deref(res.ErrorDescription))
		}
	}
	if res := e.out.results[first][0]; res.Status != codec.StatusIndeterminate || res.Attempts == 0 {
		t.Errorf("first: %s after %d attempts, want indeterminate after its attempts", res.Status, res.Attempts)
	}
	if n := e.proxy.requests(second); n != 0 {
		t.Errorf("second: %d requests, want none", n)
	}
	// A command behind them in the partition is answered after any second
	// result of theirs could have been.
	sentinel := key("gone-sentinel")
	e.produce(t, e.command(codec.KindCapture, sentinel, capture("ps_0")))
	e.out.result(t, sentinel, 60*time.Second)
	for _, k := range []string{first, second} {
		if n := len(e.out.results[k]); n != 1 {
			t.Errorf("%s: %d results, want 1", k, n)
		}
	}
}
