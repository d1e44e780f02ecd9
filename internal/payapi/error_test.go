package payapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/sensitive"
)

func envelopeError(code, desc string) string {
	return fmt.Sprintf(`{"status":"error","error":{"code":%q,"description":%q}}`, code, desc)
}

func withHeader(h, v string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(h, v)
		next(w, r)
	}
}

// truncatedBody promises more bytes than it sends, then drops the connection.
func truncatedBody(w http.ResponseWriter, _ *http.Request) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"status\":\"ok\",\"sess")
	_ = buf.Flush()
}

// hang blocks until the client gives up (the request context ends).
func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

type classCase struct {
	name       string
	handler    http.HandlerFunc
	opts       []clientOpt
	timeout    time.Duration // context deadline when > 0
	code       string
	status     int
	retryable  bool
	sent       bool
	retryAfter time.Duration
	field      string
	rule       string
	desc       string // expected Description when set
}

func classificationCases() []classCase {
	httpDate := fixedNow.Add(30 * time.Second).Format(http.TimeFormat)
	small := func(c *Config) { c.MaxResponseBytes = 64 }
	shortClient := func(c *Config) { c.HTTPClient = &http.Client{Timeout: 50 * time.Millisecond} }
	return []classCase{
		{name: "invalid_request", handler: jsonResponse(400, envelopeError("invalid_request", "amount_details.amount.positive")),
			code: "invalid_request", status: 400, sent: true, field: "amount_details.amount", rule: "positive"},
		{name: "invalid_request on 200", handler: jsonResponse(200, envelopeError("invalid_request", "session_id.blank")),
			code: "invalid_request", status: 200, sent: true, field: "session_id", rule: "blank"},
		{name: "invalid_request without field", handler: jsonResponse(400, envelopeError("invalid_request", "unique")),
			code: "invalid_request", status: 400, sent: true, rule: "unique"},
		{name: "invalid_request echoing a card number", handler: jsonResponse(400, envelopeError("invalid_request", "card 4111 1111 1111 1111 is invalid")),
			code: "invalid_request", status: 400, sent: true, desc: "card [redacted] is invalid", field: "unparseable", rule: "unparseable"},
		{name: "repository_record_not_found", handler: jsonResponse(404, envelopeError("repository_record_not_found", "Internal error")),
			code: "repository_record_not_found", status: 404, sent: true},
		{name: "repository_record_not_found on 500 is still final", handler: jsonResponse(500, envelopeError("repository_record_not_found", "Internal error")),
			code: "repository_record_not_found", status: 500, sent: true},
		{name: "idempotency_key_params_mismatch", handler: jsonResponse(409, envelopeError("idempotency_key_params_mismatch", "")),
			code: "idempotency_key_params_mismatch", status: 409, sent: true},
		{name: "idempotency_key_already_exists", handler: withHeader("Retry-After", "2", jsonResponse(409, envelopeError("idempotency_key_already_exists", ""))),
			code: "idempotency_key_already_exists", status: 409, sent: true, retryable: true, retryAfter: 2 * time.Second},
		{name: "idempotency_key_not_supported", handler: jsonResponse(400, envelopeError("idempotency_key_not_supported", "")),
			code: "idempotency_key_not_supported", status: 400, sent: true},
		{name: "unknown code on 400", handler: jsonResponse(400, envelopeError("permission_denied", "")),
			code: "permission_denied", status: 400, sent: true},
		{name: "unknown code on 503", handler: jsonResponse(503, envelopeError("maintenance", "")),
			code: "maintenance", status: 503, sent: true, retryable: true},
		{name: "500", handler: jsonResponse(500, "oops"), code: CodeHTTPStatus, status: 500, sent: true, retryable: true},
		{name: "502", handler: jsonResponse(502, "<html>bad gateway</html>"), code: CodeHTTPStatus, status: 502, sent: true, retryable: true},
		{name: "503 with Retry-After", handler: withHeader("Retry-After", "5", jsonResponse(503, "")), code: CodeHTTPStatus, status: 503, sent: true, retryable: true, retryAfter: 5 * time.Second},
		{name: "504", handler: jsonResponse(504, ""), code: CodeHTTPStatus, status: 504, sent: true, retryable: true},
		{name: "429 Retry-After seconds", handler: withHeader("Retry-After", "7", jsonResponse(429, "")), code: CodeHTTPStatus, status: 429, sent: true, retryable: true, retryAfter: 7 * time.Second},
		{name: "429 Retry-After HTTP-date", handler: withHeader("Retry-After", httpDate, jsonResponse(429, "")), code: CodeHTTPStatus, status: 429, sent: true, retryable: true, retryAfter: 30 * time.Second},
		{name: "429 without Retry-After", handler: jsonResponse(429, ""), code: CodeHTTPStatus, status: 429, sent: true, retryable: true},
		{name: "401 other 4xx", handler: jsonResponse(401, "unauthorized"), code: CodeHTTPStatus, status: 401, sent: true},
		{name: "404 other 4xx", handler: jsonResponse(404, ""), code: CodeHTTPStatus, status: 404, sent: true},
		{name: "302 not followed", handler: withHeader("Location", "/elsewhere", jsonResponse(302, "")), code: CodeHTTPStatus, status: 302, sent: true},
		{name: "malformed envelope (not JSON)", handler: jsonResponse(200, "<html>ok</html>"), code: CodeMalformedResponse, status: 200, sent: true, retryable: true},
		{name: "malformed envelope (unknown status)", handler: jsonResponse(200, `{"status":"maybe"}`), code: CodeMalformedResponse, status: 200, sent: true, retryable: true},
		{name: "malformed envelope (error without object)", handler: jsonResponse(200, `{"status":"error"}`), code: CodeMalformedResponse, status: 200, sent: true, retryable: true},
		{name: "malformed envelope (wrong types)", handler: jsonResponse(200, `{"status":"ok","session":{"id":5}}`), code: CodeMalformedResponse, status: 200, sent: true, retryable: true},
		{name: "ok without session", handler: jsonResponse(200, `{"status":"ok"}`), code: CodeMalformedResponse, status: 200, sent: true, retryable: true},
		{name: "bad timestamp", handler: jsonResponse(200, `{"status":"ok","session":{"id":"ps_1","created_at":"yesterday"}}`), code: CodeMalformedResponse, status: 200, sent: true, retryable: true},
		{name: "truncated JSON", handler: jsonResponse(200, `{"status":"ok","session":{"id":"ps_1","sta`), code: CodeMalformedResponse, status: 200, sent: true, retryable: true},
		{name: "truncated body (connection dropped)", handler: truncatedBody, code: CodeTransport, status: 200, sent: true, retryable: true},
		{name: "oversized body", handler: jsonResponse(200, `{"status":"ok","session":{"id":"ps_1","status":"`+strings.Repeat("x", 100)+`"}}`),
			opts: []clientOpt{small}, code: CodeMalformedResponse, status: 200, sent: true, retryable: true},
		{name: "oversized 500 body", handler: jsonResponse(500, strings.Repeat("x", 100)), opts: []clientOpt{small}, code: CodeMalformedResponse, status: 500, sent: true, retryable: true},
		{name: "context deadline", handler: hang, timeout: 50 * time.Millisecond, code: CodeTimeout, sent: true, retryable: true},
		{name: "http.Client timeout", handler: hang, opts: []clientOpt{shortClient}, code: CodeTimeout, sent: true, retryable: true},
	}
}

func TestErrorClassification(t *testing.T) {
	for _, tc := range classificationCases() {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFakeService(t, tc.handler)
			c := newTestClient(t, fake.srv.URL, 1, tc.opts...)
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			s, err := c.Status(ctx, "ps_1", WithIdempotencyKey("key-0001"))
			checkClass(t, tc, s, err)
		})
	}
}

func checkClass(t *testing.T, tc classCase, s *Session, err error) {
	t.Helper()
	if s != nil {
		t.Errorf("got both a session and err %v", err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err %T %v is not *Error", err, err)
	}
	got := fmt.Sprintf("code=%s status=%d retryable=%v sent=%v retryAfter=%v field=%q rule=%q",
		e.Code, e.HTTPStatus, e.Retryable, e.Sent, e.RetryAfter, e.Field, e.Rule)
	want := fmt.Sprintf("code=%s status=%d retryable=%v sent=%v retryAfter=%v field=%q rule=%q",
		tc.code, tc.status, tc.retryable, tc.sent, tc.retryAfter, tc.field, tc.rule)
	if got != want {
		t.Errorf("\n got %s\nwant %s\n(err: %v)", got, want, err)
	}
	if tc.desc != "" && e.Description != tc.desc {
		t.Errorf("description %q, want %q", e.Description, tc.desc)
	}
	if IsRetryable(err) != tc.retryable || IsRetryable(fmt.Errorf("wrapped: %w", err)) != tc.retryable {
		t.Errorf("IsRetryable disagrees with Retryable")
	}
	if e.Endpoint != "session/status" {
		t.Errorf("endpoint %q", e.Endpoint)
	}
	if strings.Contains(err.Error(), "4111") {
		t.Errorf("error text leaks card digits: %v", err)
	}
}

func TestContextEndedBeforeSending(t *testing.T) {
	fake := newFakeService(t, jsonResponse(200, `{"status":"ok","session":{"id":"ps_1"}}`))
	c := newTestClient(t, fake.srv.URL, 1)
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for name, tc := range map[string]struct {
		ctx  context.Context
		code string
		is   error
	}{
		"deadline passed": {expired, CodeTimeout, context.DeadlineExceeded},
		"canceled":        {canceled, CodeTransport, context.Canceled},
	} {
		s, err := c.Status(tc.ctx, "ps_1")
		checkClass(t, classCase{code: tc.code, retryable: true, sent: false}, s, err)
		if !errors.Is(err, tc.is) {
			t.Errorf("%s: %v does not wrap %v", name, err, tc.is)
		}
	}
	if n := len(fake.requests()); n != 0 {
		t.Errorf("%d requests sent with an ended context", n)
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := newTestClient(t, "http://"+addr, 1)
	s, err := c.Confirm(context.Background(), "ps_1")
	checkClass(t, classCase{code: CodeTransport, retryable: true, sent: false}, s, withEndpoint(err, "session/status"))
}

// withEndpoint lets checkClass (which expects session/status) check another call.
func withEndpoint(err error, ep string) error {
	var e *Error
	if errors.As(err, &e) {
		e.Endpoint = ep
	}
	return err
}

func TestInvalidIdempotencyKeyIsNotSent(t *testing.T) {
	fake := newFakeService(t, jsonResponse(200, `{"status":"ok","session":{"id":"ps_1"}}`))
	c := newTestClient(t, fake.srv.URL, 2)
	for _, k := range []string{"", "abc", strings.Repeat("k", 65), "has space", "tab\tkey", "ключ-1234", "nul\x00key"} {
		s, err := c.InitPayout(context.Background(), InitPayoutRequest{Amount: testAmount}, WithIdempotencyKey(k))
		var e *Error
		if s != nil || !errors.As(err, &e) || e.Code != CodeInvalidIdempotencyKey || e.Retryable || e.Sent {
			t.Errorf("key %q: s=%v err=%#v, want invalid_idempotency_key, final, not sent", k, s, err)
		}
	}
	for _, k := range []string{"abcd", strings.Repeat("k", 64), "!~key-0x21..0x7E~!"} {
		if _, err := c.InitPayout(context.Background(), InitPayoutRequest{Amount: testAmount}, WithIdempotencyKey(k)); err != nil {
			t.Errorf("key %q: %v", k, err)
		}
	}
	if n := len(fake.requests()); n != 3 {
		t.Errorf("%d requests reached the service, want 3 (only the valid keys)", n)
	}
}

// TestErrorTextFromAnEchoingService: a service (or a proxy, a WAF) that
// echoes the request in its error puts card data in the code, description,
// field and rule; none of it reaches the *Error or its text, in any form
// (issue 37 item 1).
func TestErrorTextFromAnEchoingService(t *testing.T) {
	body := `{"instrument":{"number":"4111.1111.1111.1111","security_code":"737"},"note":"CVV 321 cvc=123","alt":"\u0034\u0030\u0030\u0030000000000002"}`
	for _, tc := range []struct {
		name, code, desc   string
		field, rule, inDoc string // want: field and rule
	}{
		{name: "body echoed", code: "invalid_request", desc: "bad request: " + body,
			field: sensitive.Unparseable, rule: sensitive.Unparseable},
		{name: "card in the rule", code: "invalid_request", desc: "payment_details.card.4000/0000/0000/0259",
			field: "payment_details.card", rule: sensitive.Unparseable},
		{name: "card across field and rule", code: "invalid_request", desc: "payment_details.number.4111.1111.1111.1111",
			field: sensitive.Unparseable, rule: sensitive.Unparseable},
		{name: "code in the rule", code: "invalid_request", desc: "security_code.cvv737",
			field: "security_code", rule: sensitive.Unparseable},
		{name: "body as the code", code: body, desc: "x", field: "", rule: ""},
		{name: "well-formed", code: "invalid_request", desc: "headers.X-PARTNER-SIGN.blank",
			field: "headers.X-PARTNER-SIGN", rule: "blank"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFakeService(t, jsonResponse(400, envelopeError(tc.code, tc.desc)))
			c := newTestClient(t, fake.srv.URL, 1)
			_, err := c.Status(context.Background(), "ps_1")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err %v is not *Error", err)
			}
			if e.Field != tc.field || e.Rule != tc.rule {
				t.Errorf("field %q rule %q, want %q %q", e.Field, e.Rule, tc.field, tc.rule)
			}
			for what, text := range map[string]string{"code": e.Code, "description": e.Description, "field": e.Field,
				"rule": e.Rule, "error": err.Error()} {
				if sensitive.ContainsCardData(text) {
					t.Errorf("%s holds card data: %q", what, sensitive.MaskText(text))
				}
				for _, digits := range []string{"4111", "4000", "0259", "737", "321", "123"} {
					if strings.Contains(text, digits) {
						t.Errorf("%s holds %s: %q", what, digits, sensitive.MaskText(text))
					}
				}
			}
		})
	}
}

func TestPublicText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"pan 4111 1111 1111 1111.", 100, "pan [redacted]."},
		{"acct 40817810099910004312 x", 100, "acct [redacted] x"},
		{"ts 2026-11-23 and 123456789012", 100, "ts 2026-11-23 and [redacted]"},
		{`{"security_code":"737"}`, 100, `{"security_code":"[redacted]"}`},
		{"4111/1111/1111/1111 and more", 12, "[redacted] a"},
		{"ключ", 3, "к"},
		{"phone 79000000000", 100, "phone 79000000000"},
	} {
		if got := publicText(tc.in, tc.max); got != tc.want {
			t.Errorf("publicText(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestRetryAfterParsing(t *testing.T) {
	cases := map[string]time.Duration{
		"": 0, "0": 0, "-3": 0, "120": 2 * time.Minute, "soon": 0,
		fixedNow.Add(90 * time.Second).Format(http.TimeFormat):  90 * time.Second,
		fixedNow.Add(-90 * time.Second).Format(http.TimeFormat): 0,
	}
	for in, want := range cases {
		if got := retryAfter(in, fixedNow); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}
