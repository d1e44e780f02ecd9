package payapi

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/signing"
)

// TestWebhookGolden parses every webhook fixture; v1 and v2 bodies of the same
// event parse to the same model (compared with one golden per event).
func TestWebhookGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "webhooks", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no webhook fixtures: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			wh, err := ParseWebhook(body)
			if err != nil {
				t.Fatal(err)
			}
			wantVersion := 1
			if strings.HasPrefix(name, "v2_") {
				wantVersion = 2
			}
			if name == "v1_unknown_type" {
				wantVersion = 0 // no operation array: version cannot be told
			}
			if wh.Version != wantVersion {
				t.Errorf("Version %d, want %d", wh.Version, wantVersion)
			}
			if string(wh.Raw) != string(body) {
				t.Errorf("Raw is not the body as received")
			}
			out, err := json.MarshalIndent(struct {
				Type    string
				Session Session
			}{wh.Type, wh.Session}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			event := name[len("v1_"):]
			golden(t, "webhooks/golden/"+event+".parsed.golden.json", append(out, '\n'))
		})
	}
}

func TestWebhookUnknownTypeKept(t *testing.T) {
	wh, err := ParseWebhook(readFixture(t, "webhooks/v1_unknown_type.json"))
	if err != nil {
		t.Fatal(err)
	}
	if wh.Type != "session_expired_someday" || wh.Session.ID != "ps_2006" || wh.Session.Status != "canceled" {
		t.Errorf("got %+v", wh)
	}
}

func TestParseWebhookRejects(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		mixed bool
	}{
		{"not JSON", `<xml/>`, false},
		{"empty", ``, false},
		{"array", `[]`, false},
		{"no type", `{"session":{"id":"ps_1"}}`, false},
		{"empty type", `{"type":"","session":{"id":"ps_1"}}`, false},
		{"type not a string", `{"type":5,"session":{"id":"ps_1"}}`, false},
		{"no session", `{"type":"payment_finished"}`, false},
		{"null session", `{"type":"payment_finished","session":null}`, false},
		{"session wrong type", `{"type":"payment_finished","session":"ps_1"}`, false},
		{"bad timestamp", `{"type":"payment_finished","session":{"id":"ps_1","created_at":"now"}}`, false},
		{"mixed arrays", `{"type":"payment_finished","session":{"id":"ps_1","payments":[],"payment_list":[]}}`, true},
		{"v2 array, v1 instrument", `{"type":"payment_finished","session":{"id":"ps_1","payout_list":[{"id":"po_1","payment_method":{"type":"card"}}]}}`, true},
		{"v1 array, v2 instrument", `{"type":"payment_finished","session":{"id":"ps_1","payments":[{"id":"po_1","payout_details":{"type":"card"}}]}}`, true},
		{"card number echoed", `{"type":"x","session":{"id":"ps_1","created_at":"4111111111111111"}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wh, err := ParseWebhook([]byte(tc.body))
			if wh != nil || !errors.Is(err, ErrMalformedWebhook) {
				t.Fatalf("wh=%v err=%v, want ErrMalformedWebhook", wh, err)
			}
			if errors.Is(err, ErrMixedVersion) != tc.mixed {
				t.Errorf("mixed=%v for %v", !tc.mixed, err)
			}
			if strings.Contains(err.Error(), "4111111111111111") {
				t.Errorf("error leaks a card number: %v", err)
			}
		})
	}
}

func TestVerifyWebhook(t *testing.T) {
	k := key(t)
	body := readFixture(t, "webhooks/v2_ready_to_confirm.json")
	other, err := signing.GenerateKey(1024)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(s signing.Signer, b []byte) string {
		sig, err := s.Sign(b)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	good := sign(signing.NewRSASigner(k, signing.PKCS1v15), body)
	rotated := signing.NewRSAVerifier(signing.PKCS1v15, &other.PublicKey, &k.PublicKey)
	cases := []struct {
		name string
		v    signing.Verifier
		body []byte
		sig  string
		ok   bool
	}{
		{"valid", signing.NewRSAVerifier(signing.PKCS1v15, &k.PublicKey), body, good, true},
		{"valid with key rotation", rotated, body, good, true},
		{"other key", signing.NewRSAVerifier(signing.PKCS1v15, &other.PublicKey), body, good, false},
		{"tampered", rotated, append([]byte(" "), body...), good, false},
		{"missing header", rotated, body, "", false},
		{"signed by other key", rotated, body, sign(signing.NewRSASigner(other, signing.PKCS1v15), []byte("x")), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wh, err := VerifyWebhook(tc.v, tc.body, tc.sig)
			if tc.ok {
				if err != nil || wh == nil || wh.Type != WebhookReadyToConfirm || wh.Version != 2 || wh.Session.NextAction != "confirm" {
					t.Fatalf("wh=%+v err=%v", wh, err)
				}
				return
			}
			if wh != nil || !errors.Is(err, signing.ErrBadSignature) {
				t.Fatalf("wh=%v err=%v, want ErrBadSignature", wh, err)
			}
		})
	}
	if _, err := VerifyWebhook(nil, body, good); err == nil {
		t.Error("nil verifier accepted")
	}
}
