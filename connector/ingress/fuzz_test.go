package ingress

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/paysession/paysession/internal/signing"
)

// fuzzMaxBody is the body limit while fuzzing: small, so that inputs over
// it stay cheap to mutate and minimize.
const fuzzMaxBody = 1024

// FuzzServeHTTP drives the real handler over fuzzed method, content type,
// X-PARTNER-SIGN and body, with the rotation pair configured and a healthy
// producer. With resign set the header is replaced by a genuine signature of
// the body (by the current or the previous key). Properties:
//   - no panic, and only the codes the handler documents for a healthy
//     Kafka: 200, 400, 401, 405, 413, 415;
//   - a 200 or a produced record only when X-PARTNER-SIGN is a true
//     signature of exactly that body by a configured key; every other
//     answer produces nothing;
//   - past method and content type, a header that is not RSA-shaped
//     (rsaShaped) gets 401 whatever the body;
//   - a genuinely signed request gets the code its method, content type,
//     size and body call for, and a well-formed webhook is accepted with
//     one update record (key session id, event id EventID of the body).
//
// Keys are generated once per process (1024 bits, see fuzzKeys), so the committed seed corpus
// (testdata/fuzz/FuzzServeHTTP/) holds only signatures nobody can verify
// and relies on resign for accepted webhooks.
func FuzzServeHTTP(f *testing.F) {
	cur, prev, forger := fuzzKeys(f)
	good := body("payment_finished", "ps_1", "accepted", 5)
	unknown := body("brand_new_type", "ps_2", "in_progress", 7)
	v2 := []byte(`{"type":"payment_finished","session":{"id":"ps_3","status":"accepted","payout_list":[{"id":"po_1","status":"succeeded"}]}}`)
	tampered := bytes.Replace(good, []byte("1000"), []byte("9000"), 1)
	for _, s := range []struct {
		method, ctype, sig string
		body               []byte
		resign             bool
	}{
		{"POST", "application/json", "", good, true},
		{"POST", "application/json; charset=utf-8", "", unknown, true},
		{"POST", "application/json", "", v2, true},
		{"POST", "application/json", sign(f, cur, good), good, false},
		{"POST", "application/json", sign(f, prev, unknown), unknown, false},
		{"POST", "application/json", sign(f, forger, good), good, false},
		{"POST", "application/json", sign(f, cur, good), tampered, false},
		{"POST", "application/json", sign(f, cur, good)[:100], good, false},
		{"GET", "application/json", sign(f, cur, good), good, false},
		{"post", "application/json", "", good, true},
		{"POST", "text/plain", "", good, true},
		{"POST", "application/json;", "", good, true},
		{"POST", "application/json", "", []byte(`{"type":`), true},
		{"POST", "application/json", "", []byte(`{"type":"x","session":{"id":""}}`), true},
		{"POST", "application/json", "", bytes.Repeat([]byte(" "), fuzzMaxBody+1), true},
		{"POST", "application/json", strings.Repeat("A", 2048), good, false},
	} {
		f.Add(s.method, s.ctype, s.sig, s.body, s.resign)
	}
	f.Fuzz(func(t *testing.T, method, ctype, sig string, b []byte, resign bool) {
		fx := newFixture(t, func(c *Config) {
			c.MaxBodyBytes = fuzzMaxBody
			c.Verifier = signing.NewRSAVerifier(signing.PKCS1v15, &cur.PublicKey, &prev.PublicKey)
		})
		want := expectedCode(fx, method, ctype, b)
		// The handler verifies the signature only once method, content type
		// and size pass (want 200 or 400); before that, signing would be
		// wasted and the fuzzed header stays.
		resign = resign && (want == http.StatusOK || want == http.StatusBadRequest)
		if resign {
			k := cur
			if len(b)%2 == 1 {
				k = prev
			}
			sig = cachedSign(t, k, b)
		} else if want != http.StatusMethodNotAllowed && want != http.StatusUnsupportedMediaType && !rsaShaped(sig) {
			// The header's shape is checked right after the content type,
			// before the body is read.
			want = http.StatusUnauthorized
		}
		req := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(b))
		req.Method = method // any token: the request line is not under test
		req.Header.Set("Content-Type", ctype)
		if sig != "" {
			req.Header.Set("X-PARTNER-SIGN", sig)
		}
		rec := httptest.NewRecorder()
		fx.in.ServeHTTP(rec, req)
		code, produced := rec.Code, fx.prod.produced

		switch code {
		case 200, 400, 401, 405, 413, 415:
		default:
			t.Fatalf("status %d is not one the handler documents for a healthy Kafka", code)
		}
		if code != 200 && produced != 0 {
			t.Fatalf("status %d but %d records produced", code, produced)
		}
		if (code == 200 || code == 400 || produced != 0) && !resign && !genuine(b, sig, cur, prev) {
			t.Fatalf("status %d, %d records: signature %q passed but is not a configured key's signature of the body", code, produced, sig)
		}
		if !resign && code == http.StatusUnauthorized && (want == http.StatusOK || want == http.StatusBadRequest) {
			want = code // a fuzzed header, (all but surely) not a signature of the body
		}
		if code != want {
			t.Fatalf("status %d, want %d (resigned %v)", code, want, resign)
		}
		if code == 405 && rec.Header().Get("Allow") != http.MethodPost {
			t.Fatalf("405 without Allow: POST (got %q)", rec.Header().Get("Allow"))
		}
		if code == 200 {
			checkPublished(t, fx, b)
		}
	})
}

// expectedCode is the answer to a genuinely signed request, following the
// handler's documented order of checks (a genuine signature always has the
// shape the handler checks before the body).
func expectedCode(fx *fixture, method, ctype string, b []byte) int {
	if method != http.MethodPost {
		return http.StatusMethodNotAllowed
	}
	if mt, _, err := mime.ParseMediaType(ctype); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType
	}
	if int64(len(b)) > fx.in.cfg.MaxBodyBytes {
		return http.StatusRequestEntityTooLarge
	}
	if _, err := parse(b, 1); err != nil {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// rsaShaped is the oracle of the shape check: standard Base64 of as many
// bytes as an RSA signature of 1024 to 8192 bits has.
func rsaShaped(sig string) bool {
	b, err := base64.StdEncoding.DecodeString(sig)
	return err == nil && len(b) >= 128 && len(b) <= 1024
}

// checkPublished checks the records of an accepted webhook.
func checkPublished(t *testing.T, fx *fixture, b []byte) {
	t.Helper()
	wh, err := parse(b, 1)
	if err != nil {
		t.Fatalf("accepted a body that does not parse: %v", err)
	}
	got := fx.prod.topics()
	if got[updatesTopic] != 1 || len(got) > 1 {
		t.Fatalf("records %v, want one update", got)
	}
	up := fx.prod.last(updatesTopic)
	if string(up.Key) != wh.Session.ID || headerOf(up, HeaderEventID) != EventID(b) {
		t.Fatalf("update key %q headers %v, want key %q and the body's event id", up.Key, up.Headers, wh.Session.ID)
	}
}

var (
	fuzzKeysOnce sync.Once
	fuzzKeySet   [3]*rsa.PrivateKey
)

// fuzzKeys returns a rotation pair and a forger's key like testKeys, of
// 1024 bits, the least crypto/rsa accepts: the handler does not depend on
// the size, and signing, which dominates the cost of an input (minimizing
// one signs every candidate body), is several times faster than at 2048.
func fuzzKeys(t testing.TB) (current, previous, forger *rsa.PrivateKey) {
	t.Helper()
	fuzzKeysOnce.Do(func() {
		for i := range fuzzKeySet {
			k, err := rsa.GenerateKey(rand.Reader, 1024)
			if err != nil {
				panic(err)
			}
			fuzzKeySet[i] = k
		}
	})
	return fuzzKeySet[0], fuzzKeySet[1], fuzzKeySet[2]
}

// cachedSign memoizes genuine signatures: minimizing an input runs its body
// many times, and RSA signing dominates the cost of one input.
func cachedSign(t *testing.T, k *rsa.PrivateKey, b []byte) string {
	t.Helper()
	key := sigKey{k, sha256.Sum256(b)}
	sigCache.Lock()
	defer sigCache.Unlock()
	if s, ok := sigCache.m[key]; ok {
		return s
	}
	if len(sigCache.m) >= 4096 || sigCache.m == nil {
		sigCache.m = map[sigKey]string{}
	}
	s := sign(t, k, b)
	sigCache.m[key] = s
	return s
}

type sigKey struct {
	k      *rsa.PrivateKey
	digest [sha256.Size]byte
}

var sigCache struct {
	sync.Mutex
	m map[sigKey]string
}

// genuine reports whether sig is the PKCS#1 v1.5 signature of body by one
// of keys, checked with the rsa package rather than the verifier under test:
// such signatures are deterministic, so the decoded bytes must be equal.
func genuine(body []byte, sig string, keys ...*rsa.PrivateKey) bool {
	got, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return false
	}
	digest := sha256.Sum256(body)
	for _, k := range keys {
		want, err := rsa.SignPKCS1v15(nil, k, crypto.SHA256, digest[:])
		if err == nil && bytes.Equal(got, want) {
			return true
		}
	}
	return false
}
