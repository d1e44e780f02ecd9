package consumers

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/schemas"
)

// issue15Session is a session with everything issue 15 added: a POST 3-D
// Secure redirect, a refund's transaction info and a recurring token.
func issue15Session() codec.Session {
	return codec.Session{ID: "ps_15", Status: "accepted", CreatedAt: &at, UpdatedAt: &at,
		Operations: []codec.Operation{{Kind: codec.OperationPayment, ID: "pm_15", Status: "succeeded", FeeCurrency: ptr("rub"),
			Redirect: &codec.Redirect{URL: ptr("https://acs.example/pareq"), BaseURL: ptr("https://acs.example/pareq"), Method: ptr("POST"),
				QS: map[string]string{}, Params: map[string]string{"PaReq": "cGFyZXE=", "MD": "pm_15"}},
			RecurringToken: &codec.RecurringToken{Token: "rt_15", IsActive: true, CreatedAt: &at},
			Refunds:        []codec.OperationRefund{{ID: "rf_15", Status: "accepted", RRN: ptr("000123456789"), AuthCode: ptr("A1B2C3")}},
		}}}
}

// encodeWith writes rec in single-object encoding under an older released
// version of its schema, as a connector of that version did.
func encodeWith(t *testing.T, text string, rec codec.Record) []byte {
	t.Helper()
	s, err := codec.ParseSchema(text)
	if err != nil {
		t.Fatal(err)
	}
	body, err := s.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	fp := codec.Fingerprint(s)
	out := append([]byte{0xC3, 0x01}, fp[:]...)
	return append(out, body...)
}

// TestPythonConsumerReadsOldAndNewRecords produces, for each outcome schema
// that evolved, one record written under its first released version and
// one under the current schema, and checks that the Python consumer
// decodes both: the old one with the new fields at their defaults, the new
// one with them filled.
func TestPythonConsumerReadsOldAndNewRecords(t *testing.T) {
	Python(t)
	ctx := context.Background()
	brokers := harness.Kafka(t)
	cl := harness.NewClient(t)
	sess := issue15Session()
	recs := map[schemas.Name]codec.Record{
		schemas.SessionState: &codec.SessionState{Session: sess, Source: codec.SourceWebhook, ObservedAt: at, APIVersion: 1, Project: ptr("shop-2")},
		schemas.WebhookEvent: &codec.WebhookEvent{EventID: "ab", Type: "action_required", SessionID: "ps_15", ReceivedAt: at, APIVersion: 1, Session: sess},
		schemas.CommandResult: &codec.CommandResult{IdempotencyKey: "key-0015", Kind: codec.KindDisableRecurring, SourceTopic: "t", Status: codec.StatusAccepted,
			CompletedAt: at, RecurringToken: &codec.RecurringToken{Token: "rt_15", IsActive: false, FinishedAt: &at}},
	}
	topics := map[string]schemas.Name{}
	var names []string
	for n, rec := range recs {
		topic := harness.Topic(t, cl, 1)
		topics[topic] = n
		names = append(names, topic)
		versions, err := schemas.History(n)
		if err != nil || len(versions) < 2 {
			t.Fatalf("%s: want at least two released versions, have %d (%v)", n, len(versions), err)
		}
		current, err := codec.EncodeSingleObject(rec)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range [][]byte{encodeWith(t, versions[0].Text, rec), current} {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: []byte("k"), Value: v}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := ReadOutcomes(t, ReadConfig{Brokers: brokers, Topics: names, Count: 2 * len(recs)})
	seen := map[string]int{}
	for _, o := range got {
		n := topics[o.Topic]
		old := seen[o.Topic] == 0 // each topic has one partition: old record first
		seen[o.Topic]++
		checkEvolved(t, n, old, o.Value)
	}
	for topic, n := range topics {
		if seen[topic] != 2 {
			t.Errorf("%s: read %d records, want 2", n, seen[topic])
		}
	}
}

func checkEvolved(t *testing.T, n schemas.Name, old bool, v map[string]any) {
	t.Helper()
	eq := func(what string, got, want any) {
		t.Helper()
		if gb, wb := jsonOf(got), jsonOf(want); gb != wb {
			t.Errorf("%s (old=%v) %s: got %s, want %s", n, old, what, gb, wb)
		}
	}
	if n == schemas.CommandResult {
		eq("idempotency_key", v["idempotency_key"], "key-0015")
		if old {
			eq("recurring_token", v["recurring_token"], nil)
			return
		}
		eq("recurring_token", v["recurring_token"], map[string]any{"token": "rt_15", "is_active": false, "created_at": nil, "finished_at": atISO})
		return
	}
	op := v["session"].(map[string]any)["operations"].([]any)[0].(map[string]any)
	refund := op["refunds"].([]any)[0].(map[string]any)
	eq("operation id", op["id"], "pm_15")
	if old {
		eq("redirect", op["redirect"], nil)
		eq("recurring_token", op["recurring_token"], nil)
		eq("refund rrn", refund["rrn"], nil)
		return
	}
	eq("redirect", op["redirect"], map[string]any{"url": "https://acs.example/pareq", "base_url": "https://acs.example/pareq",
		"method": "POST", "qs": map[string]any{}, "params": map[string]any{"PaReq": "cGFyZXE=", "MD": "pm_15"}})
	eq("recurring_token", op["recurring_token"], map[string]any{"token": "rt_15", "is_active": true, "created_at": atISO, "finished_at": nil})
	eq("refund rrn", refund["rrn"], "000123456789")
	eq("refund auth_code", refund["auth_code"], "A1B2C3")
	eq("fee_currency", op["fee_currency"], "rub")
	if n == schemas.SessionState {
		eq("project", v["project"], "shop-2")
	}
}
