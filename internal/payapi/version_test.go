package payapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

// forbiddenNames are the member names of the other version.
var forbiddenNames = map[int][]string{
	1: {"payout_details", "payout_list", "payment_list"},
	2: {"payment_method", "payments", "acquiring_payments"},
}

// jsonKeys collects every object key in a JSON document.
func jsonKeys(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				keys[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return keys
}

// TestRequestsNeverMixVersions sends every endpoint with each version and
// checks that no member name of the other version appears, and that the
// payout instrument carries this version's name.
func TestRequestsNeverMixVersions(t *testing.T) {
	wantPayoutName := map[int]string{1: "payment_method", 2: "payout_details"}
	for _, v := range []int{1, 2} {
		fake := newFakeService(t, jsonResponse(http.StatusOK, `{"status":"error","error":{"code":"invalid_request","description":"x.y"}}`))
		c := newTestClient(t, fake.srv.URL, v)
		for _, gc := range goldenCases() {
			_, _ = gc.call(context.Background(), c, nil)
			req := fake.last(t)
			keys := jsonKeys(t, req.Body)
			for _, name := range forbiddenNames[v] {
				if keys[name] && !gc.v1Only {
					t.Errorf("v%d %s: request carries %q", v, gc.name, name)
				}
			}
			switch gc.name {
			case "create", "init_payout", "start_payout", "fps_verification":
				if !keys[wantPayoutName[v]] {
					t.Errorf("v%d %s: payout instrument not named %q", v, gc.name, wantPayoutName[v])
				}
			}
		}
	}
}

// TestResponseMixingVersionsIsRejected: a body with the other version's names
// is not silently misread. It is a malformed_response (ambiguous: the request
// was sent, so Retryable and Sent) whose cause is ErrMixedVersion.
func TestResponseMixingVersionsIsRejected(t *testing.T) {
	cases := []struct {
		name    string
		version int
		session string
	}{
		{"v1 client, v2 payout array", 1, `{"id":"ps_1","status":"in_progress","payout_list":[]}`},
		{"v1 client, v2 payment array beside v1", 1, `{"id":"ps_1","payments":[],"payment_list":[]}`},
		{"v1 client, v2 payout instrument", 1, `{"id":"ps_1","payments":[{"id":"po_1","payout_details":{"type":"card"}}]}`},
		{"v1 client, both payout instruments", 1, `{"id":"ps_1","payments":[{"id":"po_1","payment_method":{"type":"card"},"payout_details":{"type":"card"}}]}`},
		{"v2 client, v1 payout array", 2, `{"id":"ps_1","payments":[]}`},
		{"v2 client, v1 payment array as null", 2, `{"id":"ps_1","acquiring_payments":null}`},
		{"v2 client, v1 payout instrument", 2, `{"id":"ps_1","payout_list":[{"id":"po_1","payment_method":{"type":"card"}}]}`},
		{"v2 client, v1 instrument in a payment", 2, `{"id":"ps_1","payment_list":[{"id":"pm_1","payment_method":{"type":"card"}}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFakeService(t, jsonResponse(http.StatusOK, `{"status":"ok","session":`+tc.session+`}`))
			c := newTestClient(t, fake.srv.URL, tc.version)
			s, err := c.Status(context.Background(), "ps_1")
			if s != nil {
				t.Errorf("got a session %+v with a mixed body", s)
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeMalformedResponse || !e.Retryable || !e.Sent || !errors.Is(err, ErrMixedVersion) {
				t.Fatalf("err = %#v, want malformed_response (retryable, sent) wrapping ErrMixedVersion", err)
			}
		})
	}
}
