package payapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Fuzz targets for the two parsers that read untrusted bytes. Properties:
// no panic, never both a result and an error, every error classified.
// Seed corpus: testdata/fuzz/<FuzzName>/ (rewritten from the fixtures by
// TestFuzzSeedCorpus -update) plus the f.Add seeds below.

var fuzzEndpoints = []endpoint{epStatus, epConfirm, epFPSBanks, epRecurrent, epPublicToken, epTokenize, epTokenInfo, epWallet, epBankPush}

func FuzzParseResponse(f *testing.F) {
	for _, s := range []string{
		`{"status":"ok","session":{"id":"ps_1","payments":[{"id":"po_1","payment_method":{"type":"card","card":{}}}]}}`,
		`{"status":"ok","session":{"id":"ps_1","payout_list":[{"payout_details":{"type":"bank_account","bank_account":{"system_type":"ru","ru":null}}}]}}`,
		`{"status":"error","error":{"code":"invalid_request","description":"a.b.c"}}`,
		`{"status":"ok","banks":null,"wallets":[{}],"data":{"x":{}},"info":{},"recurrent":{},"public_token":""}`,
		`{"status":"ok","session":{"payments":[],"payment_list":[]}}`, `null`, ``, `{"status":"ok","session":[]}`,
	} {
		f.Add([]byte(s))
	}
	c, err := New(Config{BaseURL: "http://127.0.0.1:1", Project: "p", Signer: nopSigner{}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, v := range []int{1, 2} {
			c.version = v
			for _, status := range []int{200, 400, 429, 503} {
				for _, ep := range fuzzEndpoints {
					res, err := parseFor(c, ep, status, body)
					checkExclusive(t, res, err)
				}
			}
		}
	})
}

// parseFor runs the same steps as a client method after the body is read.
func parseFor(c *Client, ep endpoint, status int, body []byte) (any, error) {
	env, err := parseEnvelope(ep.path, status, http.Header{"Retry-After": {"3"}}, body, fixedNow)
	if err != nil {
		return nil, err
	}
	switch ep {
	case epStatus, epConfirm:
		return nilIfErr(c.sessionResult(context.Background(), ep, env))
	case epFPSBanks:
		v, err := decodeBanks(env.Banks)
		return nilIfErr(result(ep, env, v, err))
	case epRecurrent:
		v, _, err := decodeRecurrent(env.Recurrent)
		return nilIfErr(result(ep, env, v, err))
	case epPublicToken:
		v, err := decodePublicToken(env.PublicToken)
		return nilIfErr(result(ep, env, v, err))
	case epTokenize:
		v, err := decodeCardTokens(env.Data)
		return nilIfErr(result(ep, env, v, err))
	case epTokenInfo:
		v, err := decodeTokenInfo(env.Info)
		return nilIfErr(result(ep, env, v, err))
	case epWallet:
		v, err := decodeWallets(env.Wallets)
		return nilIfErr(result(ep, env, v, err))
	}
	return env, nil
}

// nilIfErr keeps a typed nil visible: a returned value is "a result" unless
// it is the zero value of its type.
func nilIfErr[T any](v T, err error) (any, error) {
	if isZero(v) {
		return nil, err
	}
	return v, err
}

func isZero(v any) bool {
	switch x := v.(type) {
	case *Session:
		return x == nil
	case []FPSBank:
		return x == nil
	case *RecurringToken:
		return x == nil
	case string:
		return x == ""
	case map[string]CardTokenInfo:
		return x == nil
	case *TokenInfo:
		return x == nil
	case []Wallet:
		return x == nil
	}
	return v == nil
}

func checkExclusive(t *testing.T, res any, err error) {
	t.Helper()
	if res != nil && err != nil {
		t.Fatalf("both a result (%T) and an error: %v", res, err)
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %T is not *Error", err)
		}
		_ = e.Error()
	}
}

func FuzzParseWebhook(f *testing.F) {
	for _, s := range []string{
		`{"type":"payment_finished","session":{"id":"ps_1","acquiring_payments":[{"id":"pm_1","refunds":[{}]}]}}`,
		`{"type":"x","session":{"payout_list":[{"payout_details":{"type":"bank_account","bank_account":{"system_type":"faster_payment_system_verification"}}}]}}`,
		`{"type":"x","session":{"payments":null,"payout_list":null}}`, `{"type":"","session":{}}`, `{}`, `[`,
		`{"type":"payment_refunded","session":{"id":"ps_1","created_at":"2026-11-23T10:00:00+0000","acquiring_payments":[{"refunds":[{"created_at":"2026-11-23T13:00:00+03","finished_at":5}]}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		wh, err := ParseWebhook(body)
		if (wh == nil) == (err == nil) {
			t.Fatalf("wh=%v err=%v: want exactly one", wh, err)
		}
		if err != nil && !errors.Is(err, ErrMalformedWebhook) {
			t.Fatalf("error does not wrap ErrMalformedWebhook: %v", err)
		}
		if wh != nil && (wh.Type == "" || wh.Version < 0 || wh.Version > 2) {
			t.Fatalf("bad webhook %+v", wh)
		}
	})
}

// FuzzParseTime: no panic; an accepted value has the fixed-width date-time
// prefix and reads back as the same instant from its RFC 3339 form; the
// error is always the fixed errNotISO8601, which never quotes the value.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-23T10:00:00.000000Z", "2026-11-23T10:00:00+0300", "2026-11-23T10:00:00+03",
		"2026-11-23T10:00:00", "2026-11-23T10:00:00,123456789012-05:30", "2026-11-23T1:00:00Z", "", "4111111111111111"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseTime(s)
		if err != nil {
			if err != errNotISO8601 {
				t.Fatalf("error %v is not the fixed errNotISO8601", err)
			}
			return
		}
		if s == "" {
			return
		}
		if !isoDateTime(s) {
			t.Fatalf("accepted %q without the date-time prefix", s)
		}
		back, err := parseTime(got.Format(time.RFC3339Nano))
		if err != nil || !back.Equal(got) {
			t.Fatalf("%q read as %s, which reads back as %s (%v)", s, got, back, err)
		}
	})
}

type nopSigner struct{}

func (nopSigner) Sign([]byte) (string, error) { return "c2ln", nil }

// TestFuzzSeedCorpus keeps testdata/fuzz/<FuzzName>/ in Go's corpus format,
// one file per fixture; -update rewrites it from the fixtures.
func TestFuzzSeedCorpus(t *testing.T) {
	sources := map[string]string{
		"FuzzParseResponse": "v[12]/*.response.json",
		"FuzzParseWebhook":  "webhooks/*.json",
	}
	for target, glob := range sources {
		files, err := filepath.Glob(filepath.Join("testdata", glob))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no fixtures (%v)", target, err)
		}
		dir := filepath.Join("testdata", "fuzz", target)
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, filepath.Base(filepath.Dir(f))+"_"+filepath.Base(f))
			entry := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(body)))
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, []byte(entry), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if got, err := os.ReadFile(name); err != nil || string(got) != entry {
				t.Errorf("%s is missing or stale (run go test -run TestFuzzSeedCorpus -update)", name)
			}
		}
	}
}
