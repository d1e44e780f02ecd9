package signing

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	keyOnce sync.Once
	keyA    *testKeys
)

// testKeys are generated once per process, never committed: a and b are
// the configured keys of a rotation, forger is a key nobody configures.
type testKeys struct{ a, b, forger *RSASigner }

func keys(t testing.TB) *testKeys {
	keyOnce.Do(func() {
		var ks [3]*RSASigner
		for i := range ks {
			k, err := GenerateKey(2048)
			if err != nil {
				t.Fatal(err)
			}
			ks[i] = NewRSASigner(k, PKCS1v15)
		}
		keyA = &testKeys{a: ks[0], b: ks[1], forger: ks[2]}
	})
	return keyA
}

func TestSignVerify(t *testing.T) {
	k := keys(t)
	body := []byte(`{"session_id":"ps_1"}`)
	for _, p := range []Padding{PKCS1v15, PSS} {
		t.Run(p.String(), func(t *testing.T) {
			s := NewRSASigner(k.a.key, p)
			sig, err := s.Sign(body)
			if err != nil {
				t.Fatal(err)
			}
			cases := []struct {
				name string
				v    *RSAVerifier
				body []byte
				sig  string
				ok   bool
			}{
				{"same key", NewRSAVerifier(p, s.Public()), body, sig, true},
				{"rotation set", NewRSAVerifier(p, k.b.Public(), s.Public()), body, sig, true},
				{"other key", NewRSAVerifier(p, k.b.Public()), body, sig, false},
				{"tampered body", NewRSAVerifier(p, s.Public()), []byte(`{"session_id":"ps_2"}`), sig, false},
				{"empty", NewRSAVerifier(p, s.Public()), body, "", false},
				{"not base64", NewRSAVerifier(p, s.Public()), body, "!!!", false},
			}
			for _, c := range cases {
				err := c.v.Verify(c.body, c.sig)
				if (err == nil) != c.ok {
					t.Errorf("%s: Verify err=%v, want ok=%v", c.name, err, c.ok)
				}
				if err != nil && !errors.Is(err, ErrBadSignature) {
					t.Errorf("%s: error %v is not ErrBadSignature", c.name, err)
				}
			}
		})
	}
}

func TestPEMForms(t *testing.T) {
	k := keys(t).a.key
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	pkcs8, err := EncodePrivateKeyPEM(k)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"pkcs1": pkcs1, "pkcs8": pkcs8} {
		got, err := ParsePrivateKeyPEM(data)
		if err != nil || !got.Equal(k) {
			t.Errorf("%s: got err=%v equal=%v", name, err, got != nil && got.Equal(k))
		}
	}
	pub1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&k.PublicKey)})
	pubX, _ := EncodePublicKeyPEM(&k.PublicKey)
	for name, data := range map[string][]byte{"pkcs1": pub1, "pkix": pubX} {
		got, err := ParsePublicKeyPEM(data)
		if err != nil || !got.Equal(&k.PublicKey) {
			t.Errorf("public %s: err=%v", name, err)
		}
	}
	if _, err := ParsePrivateKeyPEM([]byte("nope")); err == nil {
		t.Error("garbage parsed as a key")
	}
	if _, err := ParsePrivateKeyPEM(pubX); err == nil || !strings.Contains(err.Error(), "PUBLIC KEY") {
		t.Errorf("public key as private: err=%v", err)
	}
}

func TestWriteAndLoad(t *testing.T) {
	k := keys(t).a.key
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "k.pem"), filepath.Join(dir, "k.pub.pem")
	if err := WriteKeyPair(k, priv, pub); err != nil {
		t.Fatal(err)
	}
	gotPriv, err := LoadPrivateKey(priv)
	if err != nil || !gotPriv.Equal(k) {
		t.Fatalf("load private: %v", err)
	}
	gotPub, err := LoadPublicKey(pub)
	if err != nil || !gotPub.Equal(&k.PublicKey) {
		t.Fatalf("load public: %v", err)
	}
	if _, err := LoadPrivateKey(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing file loaded")
	}
}

func TestSignerDoesNotPrintKey(t *testing.T) {
	s := keys(t).a
	if got := s.String(); strings.Contains(got, s.key.D.String()[:20]) || !strings.Contains(got, "redacted") {
		t.Fatalf("String leaks or lacks redaction: %q", got)
	}
}

func TestParsePadding(t *testing.T) {
	for in, want := range map[string]Padding{"": PKCS1v15, "pkcs1v15": PKCS1v15, "pss": PSS} {
		if got, err := ParsePadding(in); err != nil || got != want {
			t.Errorf("ParsePadding(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParsePadding("oaep"); err == nil {
		t.Error("oaep accepted")
	}
}

func BenchmarkSignPKCS1v15(b *testing.B) {
	s := keys(b).a
	body := []byte(`{"session_id":"ps_123456","amount_details":{"amount":10000,"currency":"rub"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Sign(body); err != nil {
			b.Fatal(err)
		}
	}
}
