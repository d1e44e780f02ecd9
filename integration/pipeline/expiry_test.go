package pipeline_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
)

// TestExpiredOnlyWhenNeverAttempted: a command executed in a transaction
// that never committed comes back as a fresh record; once it is older than
// the key-lifetime margin it must not be reported "expired, not sent" (the
// service executed it: upstream would re-issue it and pay twice) but
// indeterminate, and it is not sent again. A command no run ever attempted
// is still expired. The first pipeline only aborts (its outcomes cannot be
// encoded); the second starts an hour later, reading the attempt marks the
// first one wrote.
func TestExpiredOnlyWhenNeverAttempted(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayout}, partitions: 2})
	cl := harness.NewClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	topic := e.topics.Commands[codec.KindInitPayout]
	attempted, untouched := key("attempted"), key("untouched")
	age := 23*time.Hour - 10*time.Minute // under the 23 h margin now, over it an hour later
	rec := func(k string, partition int32) *kgo.Record {
		return &kgo.Record{Topic: topic, Partition: partition, Key: []byte(k), Timestamp: time.Now().Add(-age),
			Value: []byte(payoutJSON)}
	}
	if err := cl.ProduceSync(context.Background(), rec(attempted, 0)).FirstErr(); err != nil {
		t.Fatal(err)
	}

	first := harness.Background(t, "aborting pipeline", mustPipeline(t, e, func(c *pipeline.Config) {
		c.Encoder = failingEncoder{} // every transaction aborts after the calls
	}).Run)
	harness.Eventually(t, 60*time.Second, "the first pipeline called the API", func() bool { return e.proxy.requests(attempted) > 0 })
	if err := first(); err != nil {
		t.Fatal(err)
	}
	sent := e.proxy.requests(attempted)
	if err := cl.ProduceSync(context.Background(), rec(untouched, 1)).FirstErr(); err != nil {
		t.Fatal(err)
	}

	later := &shiftedClock{}
	later.shift.Store(int64(time.Hour))
	harness.Background(t, "pipeline an hour later", mustPipeline(t, e, func(c *pipeline.Config) { c.Clock = later }).Run)
	res := e.out.result(t, attempted, 60*time.Second)
	if res.Status != codec.StatusIndeterminate || deref(res.ErrorCode) != "key_expired" {
		t.Errorf("attempted command: %s/%s (%s), want indeterminate/key_expired", res.Status, deref(res.ErrorCode), deref(res.ErrorDescription))
	}
	if n := e.proxy.requests(attempted); n != sent {
		t.Errorf("attempted command sent %d times after expiry (%d before)", n-sent, sent)
	}
	res = e.out.result(t, untouched, 60*time.Second)
	if res.Status != codec.StatusExpired || e.proxy.requests(untouched) != 0 {
		t.Errorf("untouched command: %s, %d requests; want expired and never sent", res.Status, e.proxy.requests(untouched))
	}
}

const payoutJSON = `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111",` +
	`"expiration_month":"12","expiration_year":"29"}}},"amount":1000,"currency":"rub","customer":{"reference":"c-1"}}`

func mustPipeline(t *testing.T, e *env, mod func(*pipeline.Config)) *pipeline.Pipeline {
	t.Helper()
	cfg := e.config()
	mod(&cfg)
	p, err := pipeline.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// failingEncoder fails every outcome, so every transaction aborts.
type failingEncoder struct{}

func (failingEncoder) Encode(context.Context, string, codec.Record) ([]byte, error) {
	return nil, errors.New("encoder down")
}

// shiftedClock is the real clock moved by shift.
type shiftedClock struct{ shift atomic.Int64 }

func (c *shiftedClock) Now() time.Time                         { return time.Now().Add(time.Duration(c.shift.Load())) }
func (c *shiftedClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
