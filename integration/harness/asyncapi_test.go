package harness

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestDocumentedHeadersFollowRefs reads the document's headers through
// message and schema $refs and allOf.
func TestDocumentedHeadersFollowRefs(t *testing.T) {
	docs, err := DocumentedHeaders()
	if err != nil {
		t.Fatal(err)
	}
	for address, want := range map[string][]string{
		"payments.dead-letter":      {"paysession-error", "traceparent"},
		"payments.sessions.updates": {"paysession-origin", "paysession-event-id", "tracestate"},
		"payments.command-results":  {"paysession-withheld", "traceparent"},
	} {
		for _, h := range want {
			if !docs[address][h] {
				t.Errorf("%s: %s not among %v", address, h, docs[address])
			}
		}
	}
}

// TestCheckWrittenHeadersNamesUndescribed: a header the document does not
// describe on its channel fails the check once per channel, naming it.
func TestCheckWrittenHeadersNamesUndescribed(t *testing.T) {
	vars := map[string]string{"PAYSESSION_TOPIC_SESSION_UPDATES": "t-updates", "PAYSESSION_TOPIC_RETRY": "t-retry"}
	h := func(keys ...string) (out []kgo.RecordHeader) {
		for _, k := range keys {
			out = append(out, kgo.RecordHeader{Key: k, Value: []byte("v")})
		}
		return out
	}
	records := []*kgo.Record{
		{Topic: "t-updates", Headers: h("paysession-origin", "traceparent", "paysession-made-up")},
		{Topic: "t-updates", Headers: h("paysession-made-up")},
		{Topic: "t-retry", Headers: h("paysession-lane", "paysession-origin")},
	}
	ft := &fakeTB{TB: t}
	seen := CheckWrittenHeaders(ft, vars, records)
	if len(ft.errs) != 2 || !strings.Contains(ft.errs[0], "paysession-made-up on payments.sessions.updates") ||
		!strings.Contains(ft.errs[1], "paysession-origin on payments.commands.retry") {
		t.Fatalf("errors %q, want the made-up header once and paysession-origin on the retry topic", ft.errs)
	}
	if !seen["PAYSESSION_TOPIC_RETRY"]["paysession-lane"] || !seen["PAYSESSION_TOPIC_SESSION_UPDATES"]["paysession-origin"] {
		t.Fatalf("seen %v", seen)
	}
}
