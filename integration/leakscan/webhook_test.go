package leakscan_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

// freeTextWebhook is a payment_finished webhook whose payment carries card
// data in its free text — the customer reference and metadata, as a service
// that copies a command's free text back (or fills it itself) would send —
// in several forms: grouped by dots and slashes, a JSON number, a
// JSON-escaped digit, a security code in text, under a member named as one,
// and in quoted JSON. It is a state of session sessionID updated at
// updatedAt: the connector publishes webhooks only for sessions the service
// has, and as events only when not older than the dedupe window.
func freeTextWebhook(sessionID string, updatedAt time.Time) []byte {
	return fmt.Appendf(nil, `{"type":"payment_finished","session":{"id":%q,"status":"accepted",`+
		`"created_at":"2026-11-24T10:00:00Z","updated_at":%q,"payments":[],"acquiring_payments":[`+
		`{"id":"pm_leakscan","status":"succeeded","created_at":"2026-11-24T10:00:00Z",`+
		`"customer":{"reference":"card %s cvv %s"},`+
		`"metadata":{"note":%q,"n":%s,"Security_Code":%q,"text":"CVV %s","escaped":"\u00%x%s","quoted":"{\"cvc\":\"%s\"}"}}]}}`,
		sessionID, updatedAt.UTC().Format(time.RFC3339Nano), grouped(paysim.CardDeclined, "."), securityCode,
		grouped(paysim.Card3DS, "/"), paysim.CardHold, securityCode, securityCode,
		paysim.CardRequiresConfirm[0], paysim.CardRequiresConfirm[1:], securityCode)
}

// postWebhook sends body to the connector's webhook endpoint, signed with
// the service key as the sandbox signs its webhooks, and fails t unless the
// connector answers 200 (its records are in Kafka).
func (r *rig) postWebhook(t *testing.T, body []byte) {
	t.Helper()
	sig, err := signing.NewRSASigner(r.serviceKey, signing.PKCS1v15).Sign(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, r.webhookURL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PARTNER-SIGN", sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post webhook: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("webhook answered %d, want 200", resp.StatusCode)
	}
}

// waitForKey reads topic (read_committed) until a record keyed key is
// there, failing t after 60 s.
func waitForKey(t *testing.T, seeds []string, topic, key string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: no record keyed %s after 60s", topic, key)
		}
		found := false
		fs.EachRecord(func(rec *kgo.Record) { found = found || string(rec.Key) == key })
		if found {
			return
		}
	}
}

// aSandboxSession returns a session the sandbox sent (or queued) a
// webhook of, once there is one.
func aSandboxSession(t *testing.T, r *rig) string {
	t.Helper()
	var id string
	harness.Eventually(t, 30*time.Second, "a webhook of the sandbox", func() bool {
		for _, d := range r.sandbox.Webhooks() {
			if d.SessionID != "" {
				id = d.SessionID
				return true
			}
		}
		return false
	})
	return id
}
