package paysim

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestAuthentication covers the spec's "missing required headers ... are
// rejected" and signature rules 2-3 with the statuses the sandbox chose.
func TestAuthentication(t *testing.T) {
	e := newEnv(t, nil)
	body := []byte(`{"session_id":"ps_1"}`)
	good, _ := e.sign.Sign(body)
	cases := []struct {
		name    string
		headers map[string]string
		status  int
		want    string
	}{
		{"no content type", map[string]string{HeaderProject: "dev", HeaderSign: good}, 400, "invalid_request headers.Content-Type.blank"},
		{"text content type", map[string]string{"Content-Type": "text/plain", HeaderProject: "dev", HeaderSign: good}, 415, "invalid_request headers.Content-Type.inclusion"},
		{"no project", map[string]string{"Content-Type": "application/json", HeaderSign: good}, 400, "invalid_request headers.X-PARTNER-PROJECT.blank"},
		{"no signature", map[string]string{"Content-Type": "application/json", HeaderProject: "dev"}, 400, "invalid_request headers.X-PARTNER-SIGN.blank"},
		{"unknown project", map[string]string{"Content-Type": "application/json", HeaderProject: "other", HeaderSign: good}, 401, "unauthorized headers.X-PARTNER-PROJECT.unknown"},
		{"bad signature", map[string]string{"Content-Type": "application/json", HeaderProject: "dev", HeaderSign: "AAAA"}, 401, "unauthorized headers.X-PARTNER-SIGN.invalid"},
		{"good", map[string]string{"Content-Type": "application/json; charset=utf-8", HeaderProject: "dev", HeaderSign: good}, 404, "repository_record_not_found internal error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/api/v1/session/status", bytes.NewReader(body))
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			r := e.do(req)
			if r.Status != tc.status || r.code() != tc.want {
				t.Fatalf("got %d %q, want %d %q", r.Status, r.code(), tc.status, tc.want)
			}
		})
	}
}

func TestSignatureCoversRawBody(t *testing.T) {
	e := newEnv(t, nil)
	signed := []byte(`{"session_id":"ps_1"}`)
	sig, _ := e.sign.Sign(signed)
	// Same JSON meaning, other bytes: the signature must not verify.
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/api/v1/session/status", strings.NewReader(`{"session_id": "ps_1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderProject, "dev")
	req.Header.Set(HeaderSign, sig)
	if r := e.do(req); r.Status != 401 {
		t.Fatalf("got %d %s", r.Status, r.code())
	}
}

// TestPaths: v1-only methods exist only under /api/v1 ("Methods shown only
// under /api/v1 exist only as v1"); unknown paths get an error envelope.
func TestPaths(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		version, method string
		status          int
		want            string
	}{
		{"v2", "fps/banks", 404, "not_found path.unknown"},
		{"v2", "wallet/balance", 404, "not_found path.unknown"},
		{"v2", "recurrent/disable", 404, "not_found path.unknown"},
		{"v3", "session/status", 404, "not_found path.unknown"},
		{"v1", "session/unknown", 404, "not_found path.unknown"},
		{"v1", "fps/banks", 200, "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.version+"/"+tc.method, func(t *testing.T) {
			r := e.call(tc.version, tc.method, map[string]any{}, "")
			if r.Status != tc.status || r.code() != tc.want {
				t.Fatalf("got %d %q", r.Status, r.code())
			}
		})
	}
	req, _ := http.NewRequest(http.MethodGet, e.http.URL+"/api/v1/session/status", nil)
	if r := e.do(req); r.Status != 405 || r.code() != "method_not_allowed method.inclusion" {
		t.Fatalf("GET on POST method: %d %s", r.Status, r.code())
	}
}

func TestBodyLimit(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxBodyBytes = 64 })
	r := e.call("v1", "session/create", map[string]any{"metadata": strings.Repeat("x", 100)}, "")
	if r.Status != 413 || r.code() != "invalid_request body.too_large" {
		t.Fatalf("got %d %s", r.Status, r.code())
	}
}

// TestValidationRules covers invalid_request "<field path>.<rule>".
func TestValidationRules(t *testing.T) {
	e := newEnv(t, nil)
	mut := func(f func(m map[string]any)) map[string]any {
		m := paymentBody(CardSuccess, 1000)
		f(m)
		return m
	}
	bc := func(m map[string]any) map[string]any {
		return m["payment_details"].(map[string]any)["card"].(map[string]any)["bank_card"].(map[string]any)
	}
	cases := []struct {
		name, version, method string
		body                  map[string]any
		want                  string
	}{
		{"blank amount_details", "v1", "session/init/payment", mut(func(m map[string]any) { delete(m, "amount_details") }), "amount_details.blank"},
		{"blank customer", "v1", "session/init/payment", mut(func(m map[string]any) { delete(m, "customer") }), "customer.blank"},
		{"amount type", "v1", "session/init/payment", mut(func(m map[string]any) { m["amount_details"] = map[string]any{"amount": "10", "currency": "rub"} }), "amount_details.amount.type"},
		{"amount fraction", "v1", "session/init/payment", mut(func(m map[string]any) { m["amount_details"] = map[string]any{"amount": 10.5, "currency": "rub"} }), "amount_details.amount.type"},
		{"amount positive", "v1", "session/init/payment", mut(func(m map[string]any) { m["amount_details"] = map[string]any{"amount": 0, "currency": "rub"} }), "amount_details.amount.positive"},
		{"currency lowercase", "v1", "session/init/payment", mut(func(m map[string]any) { m["amount_details"] = map[string]any{"amount": 1, "currency": "RUB"} }), "amount_details.currency.lowercase"},
		{"currency blank", "v1", "session/init/payment", mut(func(m map[string]any) { m["amount_details"] = map[string]any{"amount": 1, "currency": ""} }), "amount_details.currency.blank"},
		{"month two digits", "v1", "session/init/payment", mut(func(m map[string]any) { bc(m)["expiration_month"] = "1" }), "payment_details.card.bank_card.expiration_month.two_digits"},
		{"year two digits", "v1", "session/init/payment", mut(func(m map[string]any) { bc(m)["expiration_year"] = "2029" }), "payment_details.card.bank_card.expiration_year.two_digits"},
		{"luhn", "v1", "session/init/payment", mut(func(m map[string]any) { bc(m)["number"] = "4111111111111112" }), "payment_details.card.bank_card.number.luhn"},
		{"card type inclusion", "v1", "session/init/payment", mut(func(m map[string]any) {
			m["payment_details"].(map[string]any)["card"].(map[string]any)["type"] = "paper"
		}), "payment_details.card.type.inclusion"},
		{"postal code", "v1", "session/init/payment", mut(func(m map[string]any) {
			m["participant_details"] = map[string]any{"sender": map[string]any{"postal_code": "1234567"}}
		}), "participant_details.sender.postal_code.max_6_digits"},
		{"ipv4", "v1", "session/init/payment", mut(func(m map[string]any) {
			m["participant_details"] = map[string]any{"sender": map[string]any{"ipv4": "300.1.1.1"}}
		}), "participant_details.sender.ipv4.format"},
		{"return_url", "v1", "session/init/payment", mut(func(m map[string]any) { m["payment_options"] = map[string]any{"return_url": "ftp:x"} }), "payment_options.return_url.format"},
		{"v2 name in v1", "v1", "session/init/payout", payoutBody("v2", CardSuccess, 100), "payout_details.mixed_version"},
		{"v1 name in v2", "v2", "session/init/payout", payoutBody("v1", CardSuccess, 100), "payment_method.mixed_version"},
		{"v2 blank payout", "v2", "session/init/payout", map[string]any{"amount_details": map[string]any{"amount": 1, "currency": "rub"}}, "payout_details.blank"},
		{"session_id blank", "v1", "session/status", map[string]any{}, "session_id.blank"},
		{"session_id type", "v1", "session/status", map[string]any{"session_id": 5}, "session_id.type"},
		{"bic format", "v1", "session/init/payout", map[string]any{"payment_method": map[string]any{"type": "bank_account", "bank_account": map[string]any{"system_type": "ru", "ru": map[string]any{"bic": "12", "account": "40817810099910004312", "full_name": "Ivan Petrov"}}}, "amount_details": map[string]any{"amount": 1, "currency": "rub"}}, "payment_method.bank_account.ru.bic.format"},
		{"fps bank inclusion", "v1", "fps/customer_verification", map[string]any{"payment_method": map[string]any{"type": "bank_account", "bank_account": map[string]any{"system_type": systemFPS, systemFPS: map[string]any{"phone": PhoneFPSFound, "bank_id": "nope"}}}, "participant_details": map[string]any{"recipient": map[string]any{"first_name": "A", "last_name": "B"}}}, "payment_method.bank_account.faster_payment_system_verification.bank_id.inclusion"},
		{"phone digits", "v1", "bankpay/push", map[string]any{"session_id": "ps_missing", "phone": "+7"}, ""},
		{"wallet datetime", "v1", "wallet/balance", map[string]any{"request_datetime": "yesterday"}, "request_datetime.format"},
		{"token info type", "v1", "token/info", map[string]any{"type": "cheque"}, "type.inclusion"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call(tc.version, tc.method, tc.body, "")
			if tc.want == "" {
				return
			}
			if r.Status != 400 || r.code() != "invalid_request "+tc.want {
				t.Fatalf("got %d %q, want invalid_request %q", r.Status, r.code(), tc.want)
			}
		})
	}
	if r := e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 1), "abc"); r.code() != "invalid_request headers.X-PARTNER-IDEMPOTENCY-KEY.length" {
		t.Fatalf("short key: %s", r.code())
	}
}
