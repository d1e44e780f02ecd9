package payapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestParseTime: the ISO 8601 forms other than RFC 3339 that the service may
// send, all read as the same instant; no zone is read as UTC. (RFC 3339 forms
// are covered by the golden fixtures.)
func TestParseTime(t *testing.T) {
	msk := time.FixedZone("", 3*3600)
	want := time.Date(2026, 11, 23, 10, 0, 0, 0, msk)
	cases := []struct {
		name, in string
		want     time.Time
	}{
		{"+0300 without colon", "2026-11-23T10:00:00+0300", want},
		{"+03 hours only", "2026-11-23T10:00:00+03", want},
		{"-0530 without colon", "2026-11-23T01:30:00-0530", want},
		{"+0000", "2026-11-23T07:00:00+0000", want},
		{"no zone is UTC", "2026-11-23T07:00:00", want},
		{"no zone with fraction", "2026-11-23T07:00:00.5", want.Add(500 * time.Millisecond)},
		{"one fraction digit +0300", "2026-11-23T10:00:00.1+0300", want.Add(100 * time.Millisecond)},
		{"twelve fraction digits +03", "2026-11-23T10:00:00.123456789999+03", want.Add(123456789 * time.Nanosecond)},
		{"comma fraction +0300", "2026-11-23T10:00:00,25+0300", want.Add(250 * time.Millisecond)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTime(tc.in)
			if err != nil {
				t.Fatalf("parseTime(%q): %v", tc.in, err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("parseTime(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// TestParseTimeRejects guards the other side: what is not one of the
// accepted forms is still an error.
func TestParseTimeRejects(t *testing.T) {
	for _, in := range []string{"yesterday", "4111111111111111", "2026-11-23", "2026-11-23T10:00", "2026-11-23 10:00:00Z",
		"2026-11-23T10:00:00+3", "2026-11-23T10:00:00+03:0", "2026-11-23T10:00:00+25:00", "2026-11-23T10:00:00Z ",
		"2026-11-23T10:00:00.Z", "2026-13-01T00:00:00Z", " 2026-11-23T10:00:00Z"} {
		if got, err := parseTime(in); err == nil {
			t.Errorf("parseTime(%q) = %s, want an error", in, got)
		}
	}
}

// sessionWithTimes is a v1 status session whose refund carries the given
// created_at and finished_at JSON values and whose own times are primary.
func sessionWithTimes(primary, refundCreated, refundFinished string) string {
	return `{"id":"ps_1","status":"accepted","created_at":` + primary + `,"updated_at":` + primary + `,` +
		`"acquiring_payments":[{"id":"pm_1","status":"succeeded","created_at":` + primary + `,"finished_at":` + primary + `,` +
		`"refunds":[{"id":"rf_1","status":"accepted","is_chargeback":true,"created_at":` + refundCreated +
		`,"finished_at":` + refundFinished + `}]}]}`
}

type timesCase struct {
	name                       string
	primary, created, finished string // JSON values
	wantPrimary                time.Time
	wantCreated                time.Time // zero: dropped or absent
	wantFinished               *time.Time
	dropped                    []string
}

func timesCases() []timesCase {
	at := func(s string) *time.Time {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return &t
	}
	p := `"2026-11-23T10:00:00.000000Z"`
	pt := *at("2026-11-23T10:00:00Z")
	return []timesCase{
		{name: "refund times with +0300 and no zone", primary: p, created: `"2026-11-23T13:01:00+0300"`, finished: `"2026-11-23T10:01:05.5"`,
			wantPrimary: pt, wantCreated: *at("2026-11-23T10:01:00Z"), wantFinished: at("2026-11-23T10:01:05.5Z")},
		{name: "refund times with +03 and long fraction", primary: p, created: `"2026-11-23T13:01:00.1234567+03"`, finished: `null`,
			wantPrimary: pt, wantCreated: *at("2026-11-23T10:01:00.1234567Z")},
		{name: "unreadable refund finished_at is dropped", primary: p, created: `"2026-11-23T10:01:00Z"`, finished: `"soon"`,
			wantPrimary: pt, wantCreated: *at("2026-11-23T10:01:00Z"), dropped: []string{"acquiring_payments[0].refunds[0].finished_at"}},
		{name: "refund times of other JSON types are dropped", primary: p, created: `1700000000`, finished: `{"at":1}`,
			wantPrimary: pt, dropped: []string{"acquiring_payments[0].refunds[0].created_at", "acquiring_payments[0].refunds[0].finished_at"}},
		{name: "card-like refund time is dropped", primary: p, created: `"4111111111111111"`, finished: `""`,
			wantPrimary: pt, dropped: []string{"acquiring_payments[0].refunds[0].created_at"}},
		{name: "session and operation times in +0000 form", primary: `"2026-11-23T10:00:00.000000+0000"`, created: `""`, finished: `""`,
			wantPrimary: pt},
	}
}

func checkTimes(t *testing.T, tc timesCase, s *Session) {
	t.Helper()
	op := s.Payments[0]
	if !s.CreatedAt.Equal(tc.wantPrimary) || !s.UpdatedAt.Equal(tc.wantPrimary) || !op.CreatedAt.Equal(tc.wantPrimary) ||
		op.FinishedAt == nil || !op.FinishedAt.Equal(tc.wantPrimary) {
		t.Errorf("primary times %s %s %s %v, want %s", s.CreatedAt, s.UpdatedAt, op.CreatedAt, op.FinishedAt, tc.wantPrimary)
	}
	r := op.Refunds[0]
	if r.ID != "rf_1" || r.Status != "accepted" || !r.IsChargeback {
		t.Errorf("refund other members lost: %+v", r)
	}
	if !r.CreatedAt.Equal(tc.wantCreated) {
		t.Errorf("refund created_at %s, want %s", r.CreatedAt, tc.wantCreated)
	}
	if (r.FinishedAt == nil) != (tc.wantFinished == nil) || (r.FinishedAt != nil && !r.FinishedAt.Equal(*tc.wantFinished)) {
		t.Errorf("refund finished_at %v, want %v", r.FinishedAt, tc.wantFinished)
	}
}

// TestSecondaryTimesInStatus: refund times in other ISO 8601 forms are read;
// an unreadable one is dropped (and logged at Debug by path, never by value)
// instead of failing the status response.
func TestSecondaryTimesInStatus(t *testing.T) {
	for _, tc := range timesCases() {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			fake := newFakeService(t, jsonResponse(200, `{"status":"ok","session":`+sessionWithTimes(tc.primary, tc.created, tc.finished)+`}`))
			c := newTestClient(t, fake.srv.URL, 1, withLogger(logger))
			s, err := c.Status(context.Background(), "ps_1")
			if err != nil {
				t.Fatalf("status: %v", err)
			}
			checkTimes(t, tc, s)
			for _, f := range tc.dropped {
				if !strings.Contains(logs.String(), `"field":"`+f+`"`) {
					t.Errorf("no debug line naming %s:\n%s", f, logs.String())
				}
			}
			if strings.Contains(logs.String(), "4111111111111111") {
				t.Errorf("log carries the unreadable value:\n%s", logs.String())
			}
		})
	}
}

// TestSecondaryTimesInWebhook: the same for a payment_refunded webhook; the
// dropped fields are listed on the Webhook for the caller to log.
func TestSecondaryTimesInWebhook(t *testing.T) {
	for _, tc := range timesCases() {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"type":"payment_refunded","session":` + sessionWithTimes(tc.primary, tc.created, tc.finished) + `}`
			wh, err := ParseWebhook([]byte(body))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			checkTimes(t, tc, &wh.Session)
			if strings.Join(wh.DroppedFields, ",") != strings.Join(tc.dropped, ",") {
				t.Errorf("DroppedFields %q, want %q", wh.DroppedFields, tc.dropped)
			}
		})
	}
}

// TestPrimaryTimesStayStrict: an unreadable session or operation time still
// fails the response: updated_at orders a session's states, so it is never
// guessed or dropped.
func TestPrimaryTimesStayStrict(t *testing.T) {
	ok := `"2026-11-23T10:00:00Z"`
	cases := map[string]string{
		"session updated_at":    `{"id":"ps_1","updated_at":"soon"}`,
		"operation created_at":  `{"id":"ps_1","created_at":` + ok + `,"payments":[{"id":"po_1","created_at":"2026-11-23T10:00:00+3"}]}`,
		"operation finished_at": `{"id":"ps_1","payments":[{"id":"po_1","finished_at":"4111111111111111"}]}`,
	}
	for name, session := range cases {
		t.Run(name, func(t *testing.T) {
			fake := newFakeService(t, jsonResponse(200, `{"status":"ok","session":`+session+`}`))
			c := newTestClient(t, fake.srv.URL, 1)
			s, err := c.Status(context.Background(), "ps_1")
			var e *Error
			if s != nil || !errors.As(err, &e) || e.Code != CodeMalformedResponse {
				t.Fatalf("got %v, %v; want a malformed_response", s, err)
			}
			if strings.Contains(err.Error(), "4111111111111111") {
				t.Errorf("error carries the value: %v", err)
			}
			if _, err := ParseWebhook([]byte(`{"type":"payment_finished","session":` + session + `}`)); !errors.Is(err, ErrMalformedWebhook) {
				t.Errorf("webhook: %v, want ErrMalformedWebhook", err)
			}
		})
	}
}

// TestRecurringTokenTimes: the token's times are secondary: other ISO forms
// are read and an unreadable expiry is dropped.
func TestRecurringTokenTimes(t *testing.T) {
	cases := []struct {
		name, created, finished string
		wantCreated             time.Time
		wantFinished            *time.Time
	}{
		{"+03 and no zone", `"2026-01-15T11:30:00+03"`, `"2000-01-01T00:00:00"`,
			time.Date(2026, 1, 15, 8, 30, 0, 0, time.UTC), new(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))},
		{"unreadable expiry dropped", `"2026-01-15T08:30:00.000000+0000"`, `"31.12.2099"`,
			time.Date(2026, 1, 15, 8, 30, 0, 0, time.UTC), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"status":"ok","recurrent":{"token":"rt_1","is_active":false,"created_at":` + tc.created + `,"finished_at":` + tc.finished + `}}`
			fake := newFakeService(t, jsonResponse(200, body))
			c := newTestClient(t, fake.srv.URL, 1)
			rt, err := c.DisableRecurring(context.Background(), "rt_1")
			if err != nil {
				t.Fatal(err)
			}
			if rt.Token != "rt_1" || !rt.CreatedAt.Equal(tc.wantCreated) {
				t.Errorf("got %+v", rt)
			}
			if (rt.FinishedAt == nil) != (tc.wantFinished == nil) || (rt.FinishedAt != nil && !rt.FinishedAt.Equal(*tc.wantFinished)) {
				t.Errorf("finished_at %v, want %v", rt.FinishedAt, tc.wantFinished)
			}
		})
	}
}
