package ingress

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/outbound"
)

// limit is one limit for every topic.
type limit int

func (l limit) MaxMessageBytes(string) int { return int(l) }

// TestWebhookStateTooLargeForTheUpdatesTopic: a webhook whose state would
// not fit the updates topic is published without its operations'
// metadata, saying so in a header.
func TestWebhookStateTooLargeForTheUpdatesTopic(t *testing.T) {
	sizer, err := outbound.NewSizer(limit(2<<10), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *Config) { c.Sizer, c.MaxBodyBytes = sizer, 64<<10 })
	b := body("payment_finished", "ps_big", "accepted", 1)
	b = []byte(strings.Replace(string(b), `"status":"in_progress",`, `"status":"in_progress","metadata":{"note":"`+strings.Repeat("x", 8<<10)+`"},`, 1))
	if code := f.post(t, b, sign(t, f.key, b)); code != http.StatusOK {
		t.Fatalf("status %d, want 200", code)
	}
	rec := f.prod.last(updatesTopic)
	if rec == nil {
		t.Fatal("nothing published")
	}
	if v, _ := header.Get(rec, header.Withheld); v != outbound.WithheldMetadata || strings.Contains(string(rec.Value), "xxxx") {
		t.Errorf("published %d bytes, %s = %q: want the state without metadata", len(rec.Value), header.Withheld, v)
	}
	if !sizer.Fits(rec) {
		t.Errorf("published %d batch bytes over the updates topic's limit", outbound.RecordBatchBytes(rec))
	}
}
