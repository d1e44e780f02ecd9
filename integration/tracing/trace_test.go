package tracing

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/inproc"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
)

const (
	project = "trace"
	// upstreamTrace is the trace of the command as its producer sent it.
	upstreamTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	upstreamParent = "00f067aa0ba902b7"
)

// TestPayoutIsOneTraceAcrossReplicas: replica A runs an init_payout
// command (it owns the command partition: it joined first); the sandbox
// sends the payout's webhooks to replica B only. The command carries an
// upstream traceparent. Every span of the command's own work — consume,
// decode, the API attempt and its HTTP span, produce, and the session
// writer's write of the state — is in the upstream trace; the webhook
// request's span (on B) is in a trace of its own, and the write of the
// final state it proposed is in the command's trace too, linked to the
// webhook's trace; the final state on the sessions topic carries the
// command's trace in its traceparent.
func TestPayoutIsOneTraceAcrossReplicas(t *testing.T) {
	recv, err := StartReceiver()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = recv.Close() })
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL())
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
	t.Setenv("OTEL_SERVICE_NAME", "paysession-tracing-test")

	// The sandbox sends webhooks to the rig's listener, which B serves.
	rig := inproc.NewRig(t, inproc.Project(project))
	vars := rig.Vars
	log := inproc.LogTo(harness.FailureLog(t, "TRACING_TEST_LOG"))
	a := rig.Start(t, inproc.InstanceID(vars["PAYSESSION_KAFKA_GROUP_ID"]+"-a"), inproc.WebhookListener(harness.Listen(t)), log)
	a.AwaitReady(t)
	b := rig.Start(t, inproc.InstanceID(vars["PAYSESSION_KAFKA_GROUP_ID"]+"-b"), log)
	b.AwaitReady(t)
	cl := harness.NewClient(t, kgo.ProducerLinger(0))
	// The command is sent once both replicas are in the pipeline's group
	// (A keeps the command partition: it joined first), so no rebalance
	// aborts its transaction. A webhook that overtakes the command's
	// transaction all the same is linked the other way (finalWrite).
	adm := kadm.NewClient(cl)
	harness.Eventually(t, 60*time.Second, "pipeline group stable with both replicas", func() bool {
		gs, err := adm.DescribeGroups(context.Background(), vars["PAYSESSION_KAFKA_GROUP_ID"])
		if err != nil {
			return false
		}
		g, ok := gs[vars["PAYSESSION_KAFKA_GROUP_ID"]]
		return ok && g.Err == nil && g.State == "Stable" && len(g.Members) == 2
	})

	key := "trace-payout-1"
	rec := &kgo.Record{Topic: vars[config.Prefix+"TOPIC_INIT_PAYOUT"], Key: []byte(key),
		Value: []byte(`{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"2200000000000004"}}},` +
			`"amount":7700,"currency":"rub"}`),
		Headers: []kgo.RecordHeader{{Key: "traceparent", Value: []byte("00-" + upstreamTrace + "-" + upstreamParent + "-01")}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}

	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	final := awaitFinal(t, cl, dec, vars[config.Prefix+"TOPIC_SESSIONS"])

	var byID map[string]Span
	var inTrace []Span
	defer func() {
		if t.Failed() {
			for _, s := range recv.Spans() {
				t.Logf("span %s trace %s id %s parent %s links %v attrs %v", s.Name, s.TraceID, s.SpanID, s.ParentID, s.Links, s.Attrs)
			}
		}
	}()
	harness.Eventually(t, 60*time.Second, "the command's trace reaches its final state, linked to the webhook", func() bool {
		byID, inTrace = map[string]Span{}, nil
		for _, s := range recv.Spans() {
			byID[s.SpanID] = s
			if s.TraceID == upstreamTrace {
				inTrace = append(inTrace, s)
			}
		}
		_, _, ok := finalWrite(inTrace, byID)
		return ok && has(inTrace, "pipeline produce init_payout")
	})
	for _, want := range []string{"pipeline consume init_payout", "pipeline decode init_payout", "payapi session/init/payout",
		"HTTP POST /api/v1/session/init/payout", "pipeline produce init_payout"} {
		if !has(inTrace, want) {
			t.Errorf("no span %q in the command's trace; it has %v", want, names(inTrace))
		}
	}
	consume := find(inTrace, "pipeline consume init_payout")
	if consume.ParentID == "" || byID[consume.ParentID].TraceID != upstreamTrace && consume.ParentID != upstreamParent &&
		!strings.HasSuffix(byID[consume.ParentID].Name, "receive") {
		t.Errorf("consume span's parent %s is neither the upstream span nor kotel's receive span", consume.ParentID)
	}
	if api := find(inTrace, "payapi session/init/payout"); api.Attrs["paysession.outcome"] != "ok" || api.Attrs["paysession.endpoint"] != "session/init/payout" {
		t.Errorf("API attempt span attributes %v, want endpoint and outcome ok", api.Attrs)
	}
	if !hasPrefix(inTrace, "session writer write ") && !hasPrefix(inTrace, "session writer superseded ") {
		t.Errorf("no span of the session writer for the command's own update in its trace: %v", names(inTrace))
	}
	write, hookTrace, _ := finalWrite(inTrace, byID)
	t.Logf("final state written by span %s in trace %s (command's: %v)", write.Name, write.TraceID, write.TraceID == upstreamTrace)
	if tp := header(final, "traceparent"); !strings.Contains(tp, write.TraceID) {
		t.Errorf("final state's traceparent %q is not the trace of its write span %s", tp, write.TraceID)
	}
	webhook := findInTrace(recv.Spans(), hookTrace, "webhook POST")
	if webhook.Attrs["paysession.webhook.verdict"] != "accepted" || webhook.Attrs["http.response.status_code"] != "200" {
		t.Errorf("webhook span attributes %v", webhook.Attrs)
	}
	for _, s := range recv.Spans() {
		if _, ok := s.Attrs["messaging.kafka.message.key"]; ok {
			t.Errorf("span %s records a record key", s.Name)
		}
		for k, v := range s.Attrs {
			if strings.Contains(v, "2200000000000004") || strings.Contains(v, key) {
				t.Errorf("span %s attribute %s holds the card number or the command's key", s.Name, k)
			}
		}
	}
	// Every header the replicas wrote is one schemas/asyncapi.yaml
	// describes on that topic (issue 42 item 6); with tracing on, each
	// outcome topic of the command carries its trace context.
	var written []*kgo.Record
	for _, v := range []string{"COMMAND_RESULTS", "SESSIONS", "SESSION_UPDATES", "WEBHOOK_EVENTS", "ATTEMPTS"} {
		written = append(written, readAll(t, vars[config.Prefix+"TOPIC_"+v])...)
	}
	seen := harness.CheckWrittenHeaders(t, vars, written)
	for _, v := range []string{"COMMAND_RESULTS", "SESSIONS", "SESSION_UPDATES", "WEBHOOK_EVENTS"} {
		if !seen[config.Prefix+"TOPIC_"+v]["traceparent"] {
			t.Errorf("no record on the topic of %sTOPIC_%s carries a traceparent", config.Prefix, v)
		}
	}

	// The webhook came to B and only to B; A ran the command.
	if n := webhookRequests(t, a.Registry); n != 0 {
		t.Errorf("replica A answered %v webhooks, want none", n)
	}
	if n := webhookRequests(t, b.Registry); n == 0 {
		t.Error("replica B answered no webhook")
	}
}

// finalWrite returns the write of the webhook's state and the trace of
// the webhook request that proposed it, when the command's trace reaches
// it: either the write continues the command's trace (it is its parent)
// and links the webhook's trace, or — when the webhook overtook the
// command's transaction — the write is in the webhook's trace and the
// command's late update has a span in the command's trace linked to it.
func finalWrite(inTrace []Span, byID map[string]Span) (write Span, webhookTrace string, ok bool) {
	hasWebhook := func(traceID string) bool {
		for _, o := range byID {
			if o.TraceID == traceID && strings.HasPrefix(o.Name, "webhook POST") {
				return true
			}
		}
		return false
	}
	for _, s := range inTrace {
		switch {
		case strings.HasPrefix(s.Name, "session writer write ") && s.Attrs["paysession.continues_command_trace"] == "true" &&
			s.Attrs["paysession.state.source"] == "webhook" && len(s.Links) > 0 && hasWebhook(s.Links[0].TraceID):
			return s, s.Links[0].TraceID, true
		case strings.HasPrefix(s.Name, "session writer superseded ") && len(s.Links) > 0:
			w, found := byID[s.Links[0].SpanID]
			if found && w.Attrs["paysession.state.source"] == "webhook" && hasWebhook(w.TraceID) {
				return w, w.TraceID, true
			}
		}
	}
	return Span{}, "", false
}

func awaitFinal(t *testing.T, cl *kgo.Client, dec *codec.Decoder, topic string) *kgo.Record {
	t.Helper()
	var final *kgo.Record
	harness.Eventually(t, 60*time.Second, "payout succeeded on the sessions topic", func() bool {
		for _, r := range readAll(t, topic) {
			var st codec.SessionState
			if err := dec.DecodeRecord(context.Background(), r.Value, &st); err != nil {
				continue
			}
			if st.Source == codec.SourceWebhook && len(st.Session.Operations) == 1 && st.Session.Operations[0].Status == "succeeded" {
				final = r
				return true
			}
		}
		return false
	})
	return final
}

func readAll(t *testing.T, topic string) []*kgo.Record {
	cl := harness.NewClient(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var out []*kgo.Record
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	return out
}

func header(r *kgo.Record, k string) string {
	for _, h := range r.Headers {
		if h.Key == k {
			return string(h.Value)
		}
	}
	return ""
}

func has(spans []Span, name string) bool { return find(spans, name).SpanID != "" }

func hasPrefix(spans []Span, p string) bool {
	for _, s := range spans {
		if strings.HasPrefix(s.Name, p) {
			return true
		}
	}
	return false
}

func find(spans []Span, name string) Span {
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	return Span{}
}

func findInTrace(spans []Span, traceID, prefix string) Span {
	for _, s := range spans {
		if s.TraceID == traceID && strings.HasPrefix(s.Name, prefix) {
			return s
		}
	}
	return Span{}
}

func names(spans []Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func webhookRequests(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() == "paysession_webhook_requests_total" {
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}
