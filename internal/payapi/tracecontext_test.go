package payapi

import (
	"context"
	"testing"
)

func TestTraceContextHeaders(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	cases := []struct {
		name             string
		parent, state    string
		wantParent, want string
	}{
		{"valid with state", tp, "vendor=1", tp, "vendor=1"},
		{"valid without state", tp, "", tp, ""},
		{"malformed parent dropped with its state", "00-xyz-01", "vendor=1", "", ""},
		{"upper-case hex is not W3C", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeService(t, jsonResponse(200, `{"status":"ok","session":{"id":"ps_1","status":"created","created_at":"2026-11-23T10:00:00.000000Z","updated_at":"2026-11-23T10:00:00.000000Z"}}`))
			cl := newTestClient(t, f.srv.URL, 1)
			if _, err := cl.Status(context.Background(), "ps_1", WithTraceContext(c.parent, c.state)); err != nil {
				t.Fatal(err)
			}
			got := f.last(t).Header
			if got.Get(HeaderTraceParent) != c.wantParent || got.Get(HeaderTraceState) != c.want {
				t.Fatalf("traceparent=%q tracestate=%q, want %q %q", got.Get(HeaderTraceParent), got.Get(HeaderTraceState), c.wantParent, c.want)
			}
		})
	}
}
