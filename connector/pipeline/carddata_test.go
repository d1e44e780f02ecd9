package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

// Card data the tests below put where it must not come back from.
var (
	leakPANs  = []string{"4111111111111111", "4000000000000259", "4000000000000002"}
	leakCodes = []string{"737", "321", "123"}
)

// checkNoCardData fails t for every record of recs whose key, value or
// headers hold card data (the one matcher) or the digits of leakPANs and
// leakCodes in any of the forms the tests use.
func checkNoCardData(t *testing.T, recs []*kgo.Record) {
	t.Helper()
	for _, r := range recs {
		parts := map[string]string{"key": string(r.Key), "value": string(r.Value)}
		for _, h := range r.Headers {
			parts["header "+h.Key] = string(h.Value)
		}
		for what, text := range parts {
			if sensitive.ContainsCardData(text) {
				t.Errorf("%s %s holds card data: %s", r.Topic, what, sensitive.Scrub(text))
			}
			for _, pan := range leakPANs {
				for _, piece := range []string{pan[:6], pan[:4] + ".", pan[:4] + "/", pan[len(pan)-4:] + `"`} {
					if strings.Contains(text, piece) {
						t.Errorf("%s %s holds %q of a card: %s", r.Topic, what, piece, sensitive.Scrub(text))
					}
				}
			}
			for _, code := range leakCodes {
				if strings.Contains(text, `"`+code+`"`) || strings.Contains(text, " "+code) || strings.Contains(text, "="+code) {
					t.Errorf("%s %s holds the security code %s", r.Topic, what, code)
				}
			}
		}
	}
}

// TestAPIErrorTextReachesNoTopic: an API (or a proxy in front of it) that
// echoes the request in its error puts card data in the description, the
// field and the rule; the command's result carries none of it, in any form,
// even from an *payapi.Error whose text was not parsed (issue 37 item 1).
func TestAPIErrorTextReachesNoTopic(t *testing.T) {
	echo := `{"instrument":{"number":"4111.1111.1111.1111","security_code":"737"},"note":"CVV 321 cvc=123","alt":"\u0034000000000000259"}`
	for _, e := range []*payapi.Error{
		{Code: "invalid_request", Description: "bad request: " + echo, Field: "payment.4111.1111.1111", Rule: "4000/0000/0000/0259", HTTPStatus: 400, Sent: true},
		{Code: echo, Description: echo, Field: echo, Rule: echo, HTTPStatus: 400, Sent: true},
		{Code: "invalid_request", Description: strings.Repeat("x", maxDescription-10) + "4000 0000 0000 0002 tail", HTTPStatus: 400, Sent: true},
	} {
		api := &fakeAPI{handle: func(context.Context, fakeCall) (*payapi.Session, error) { return nil, e }}
		p := newTestPipeline(t, api, nil)
		rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte("key-0001"), Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow}
		out := p.process(context.Background(), p.polled(rec, "capture", false))
		recs, err := p.outcomeRecords(context.Background(), out, testNow)
		if err != nil {
			t.Fatal(err)
		}
		checkNoCardData(t, recs)
		var res codec.CommandResult
		if err := json.Unmarshal(recs[0].Value, &res); err != nil {
			t.Fatal(err)
		}
		for what, v := range map[string]*string{"field": res.ErrorField, "rule": res.ErrorRule, "code": res.ErrorCode} {
			if v != nil && *v != sensitive.Unparseable && *v != "invalid_request" {
				t.Errorf("error %s %q: neither parsed nor the placeholder", what, *v)
			}
		}
	}
}

// TestCardDataInFreeTextIsInvalid: a command whose customer reference or
// metadata holds card data is invalid (card_data, naming the field), never
// sent, and its result and dead letter hold none of it (issue 37 item 2).
func TestCardDataInFreeTextIsInvalid(t *testing.T) {
	const payment = `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4000000000000002","expiration_month":"12","expiration_year":"29"}}},"amount":100,"currency":"rub",`
	for _, tc := range []struct{ name, value, field string }{
		{"reference", payment + `"customer":{"reference":"card 4111.1111.1111.1111"}}`, "customer.reference"},
		{"reference code", payment + `"customer":{"reference":"cvv 321"}}`, "customer.reference"},
		{"metadata", payment + `"customer":{"reference":"c-1"},"metadata":{"note":"4000/0000/0000/0259"}}`, "metadata.note"},
		{"metadata code", payment + `"customer":{"reference":"c-1"},"metadata":{"security_code":"737"}}`, "metadata.security_code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeAPI{}
			p := newTestPipeline(t, api, nil)
			rec := &kgo.Record{Topic: p.cfg.Topics.Commands["init_payment"], Key: []byte("key-0001"), Value: []byte(tc.value), Timestamp: testNow}
			out := p.process(context.Background(), p.polled(rec, "init_payment", false))
			if out.verdict.Status != codec.StatusInvalid || out.verdict.Field != tc.field || out.verdict.Rule != codec.RuleCardData {
				t.Fatalf("verdict %s %s/%s, want invalid %s/%s", out.verdict.Status, out.verdict.Field, out.verdict.Rule, tc.field, codec.RuleCardData)
			}
			if len(api.calls) != 0 {
				t.Errorf("the command was sent")
			}
			recs, err := p.outcomeRecords(context.Background(), out, testNow)
			if err != nil {
				t.Fatal(err)
			}
			// The dead letter keeps the command with its cards masked to bin
			// and last4 (codec.ProtectValue); the other records hold none.
			checkNoCardData(t, recs[:1])
		})
	}
}

// TestOutcomeKeyOfACardKeyCannotBeInverted: the key, headers and values of
// the outcome records of a command keyed by a card number hold none of its
// digits (no bin, no last4) and no hash of it that candidates could be
// tried against (issue 37 item 3).
func TestOutcomeKeyOfACardKeyCannotBeInverted(t *testing.T) {
	for _, key := range []string{"4111111111111111", "4111.1111.1111.1111", "4111 1111 1111 1111", `\u0034111111111111111`} {
		p := newTestPipeline(t, &fakeAPI{}, nil)
		rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Partition: 2, Offset: 41, Key: []byte(key),
			Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow}
		out := p.process(context.Background(), p.polled(rec, "capture", false))
		recs, err := p.outcomeRecords(context.Background(), out, testNow)
		if err != nil {
			t.Fatal(err)
		}
		checkNoCardData(t, recs)
		sum := sha256.Sum256([]byte("4111111111111111"))
		sumOfKey := sha256.Sum256([]byte(key))
		for _, r := range recs {
			for _, text := range []string{string(r.Key), string(r.Value)} {
				for _, h := range []string{hex.EncodeToString(sum[:]), hex.EncodeToString(sumOfKey[:])} {
					if strings.Contains(text, h[:8]) {
						t.Errorf("%s: key %q or value holds a SHA-256 prefix of the card", r.Topic, r.Key)
					}
				}
				if strings.Contains(text, "1111") {
					t.Errorf("%s: key %q or value holds the card's last4", r.Topic, r.Key)
				}
			}
		}
	}
}
