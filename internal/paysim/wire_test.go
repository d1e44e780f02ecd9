package paysim

import (
	"regexp"
	"strings"
	"testing"
)

var (
	reTimestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$`)
	reSessionID = regexp.MustCompile(`^ps_\d+$`)
)

// TestWireShapes covers "Timestamps ... UTC with microseconds", the id
// shapes ps_/pm_/po_/rf_, the array names of each version, and that the
// full card number and security code never leave the sandbox.
func TestWireShapes(t *testing.T) {
	for _, tc := range []struct{ version, payouts, payments string }{
		{"v1", "payments", "acquiring_payments"},
		{"v2", "payout_list", "payment_list"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			e := newEnv(t, nil)
			out := e.call(tc.version, "session/init/payout", payoutBody(tc.version, CardSuccess, 100), "")
			pay := e.call(tc.version, "session/init/payment", paymentBody(CardSuccess, 100), "")
			e.idle()
			ref := e.call(tc.version, "session/refund", map[string]any{"session_id": pay.session()["id"]}, "")
			for _, r := range []resp{out, pay, ref} {
				if strings.Contains(string(r.Raw), CardSuccess) || strings.Contains(string(r.Raw), `"security_code"`) {
					t.Fatalf("card data in response: %s", r.Raw)
				}
				s := r.session()
				if !reSessionID.MatchString(s["id"].(string)) || !reTimestamp.MatchString(s["created_at"].(string)) || !reTimestamp.MatchString(s["updated_at"].(string)) {
					t.Fatalf("session shape: %v", s)
				}
			}
			if _, ok := out.session()[tc.payouts]; !ok {
				t.Fatalf("payout array %s missing: %s", tc.payouts, out.Raw)
			}
			if _, ok := pay.session()[tc.payments]; !ok {
				t.Fatalf("payment array %s missing: %s", tc.payments, pay.Raw)
			}
			po, pm := op(out.session()), op(ref.session())
			if !strings.HasPrefix(po["id"].(string), "po_") || !strings.HasPrefix(pm["id"].(string), "pm_") ||
				!strings.HasPrefix(pm["refunds"].([]any)[0].(map[string]any)["id"].(string), "rf_") {
				t.Fatalf("operation ids: %v %v", po, pm)
			}
			if !reTimestamp.MatchString(pm["finished_at"].(string)) {
				t.Fatalf("finished_at %v", pm["finished_at"])
			}
			c := pm["payment_details"].(map[string]any)["card"].(map[string]any)
			if c["last4"] != "1111" || c["bin"] != "411111" || c["brand"] != "visa" || c["country_iso3"] == nil {
				t.Fatalf("card output members: %v", c)
			}
		})
	}
}

func TestSubmerchantMetadataRule(t *testing.T) {
	e := newEnv(t, nil)
	body := payoutBody("v1", CardSuccess, 100)
	body["metadata"] = map[string]any{"merchant": "x", "submerchant": "https://shop.example"}
	raw := e.callWith("v1", "session/init/payout", body, map[string]string{HeaderSubmerchant: "sub-1"})
	if raw.code() != "invalid_request metadata.merchant.present" {
		t.Fatalf("got %s", raw.code())
	}
	body["metadata"] = map[string]any{"merchant": "", "submerchant": "https://shop.example"}
	if r := e.callWith("v1", "session/init/payout", body, map[string]string{HeaderSubmerchant: "sub-1"}); r.Status != 200 {
		t.Fatalf("got %s", r.code())
	}
}
