package reconcile

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/tracing"
	"github.com/paysession/paysession/internal/tracing/kafkatrace"
)

// TestPollSpan: with tracing on, a poll is a span, and the update it
// publishes carries that span's trace (through kotel's publish span), so
// the session writer can link it to the session's command trace.
func TestPollSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	defer tracing.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))()
	g := newRigWith(t, ConfirmPolicy{}, func(c *Config) {
		traced, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers...), kgo.WithHooks(kafkatrace.Hooks()...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(traced.Close)
		c.Producer = traced
	})
	g.seed(t, session("ps_1", "in_progress", "", t0, "payout", 100))
	g.api.set(session("ps_1", "accepted", "", t0.Add(time.Minute), "payout", 100))
	waitFor(t, "pending set loaded", func() bool { return g.rec.OpenSessions() == 1 })
	g.clock.Advance(5 * time.Minute)
	waitFor(t, "session final", func() bool { return g.rec.OpenSessions() == 0 })
	var poll sdktrace.ReadOnlySpan
	waitFor(t, "poll span ended", func() bool {
		for _, s := range rec.Ended() {
			if s.Name() == "reconciler poll" {
				poll = s
				return true
			}
		}
		return false
	})
	attrs := attribute.NewSet(poll.Attributes()...)
	if v, _ := attrs.Value("paysession.session_id"); v.AsString() != "ps_1" {
		t.Errorf("poll span session id %q", v.AsString())
	}
	if v, _ := attrs.Value("paysession.reconcile.learned"); !v.AsBool() {
		t.Error("poll span says it learned nothing")
	}
	found := false
	for _, r := range g.published(t) {
		var st codec.SessionState
		_ = json.Unmarshal(r.Value, &st)
		if st.Source != codec.SourcePoll {
			continue
		}
		found = true
		for _, h := range r.Headers {
			if h.Key == "traceparent" && !strings.Contains(string(h.Value), poll.SpanContext().TraceID().String()) {
				t.Errorf("polled update traceparent %q, want the poll's trace %s", h.Value, poll.SpanContext().TraceID())
			}
		}
		if kafkatrace.RecordSpanContext(r).TraceID() != poll.SpanContext().TraceID() {
			t.Errorf("polled update carries no trace context of the poll")
		}
	}
	if !found {
		t.Fatal("no polled state published")
	}
}
