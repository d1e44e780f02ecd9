package signing

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The contract every engine of Engines() must pass: run it once with the
// default build and once with -tags libcrypto, so each engine in turn is
// also the engine of NewRSASigner and of the packages' own tests.

// engineBodies are the bodies every engine signs: empty, a request, and
// bytes that are not JSON.
var engineBodies = map[string][]byte{
	"empty":   {},
	"request": []byte(`{"session_id":"ps_123456","amount_details":{"amount":10000,"currency":"rub"}}`),
	"binary":  {0x00, 0xff, 0x10, '\n', 0x80},
}

func engineSigner(t testing.TB, e Engine, p Padding) *RSASigner {
	t.Helper()
	s, err := NewRSASignerWith(e, keys(t).a.key, p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine() != e {
		t.Fatalf("signer engine %s, want %s", s.Engine(), e)
	}
	return s
}

func TestEnginesSignVerify(t *testing.T) {
	k := keys(t)
	for _, e := range Engines() {
		for _, p := range []Padding{PKCS1v15, PSS} {
			t.Run(fmt.Sprintf("%s/%s", e, p), func(t *testing.T) {
				s := engineSigner(t, e, p)
				for name, body := range engineBodies {
					sig, err := s.Sign(body)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := NewRSAVerifier(p, k.b.Public(), k.a.Public()).Verify(body, sig); err != nil {
						t.Errorf("%s: own signature rejected: %v", name, err)
					}
					tampered := append(bytes.Clone(body), ' ')
					if err := NewRSAVerifier(p, k.a.Public()).Verify(tampered, sig); !errors.Is(err, ErrBadSignature) {
						t.Errorf("%s: signature accepted over other bytes: %v", name, err)
					}
					if err := NewRSAVerifier(p, k.b.Public()).Verify(body, sig); !errors.Is(err, ErrBadSignature) {
						t.Errorf("%s: signature accepted under another key: %v", name, err)
					}
				}
			})
		}
	}
}

// TestEnginesGoldenPKCS1v15: PKCS#1 v1.5 is deterministic, so every engine
// must produce crypto/rsa's bytes exactly.
func TestEnginesGoldenPKCS1v15(t *testing.T) {
	golden := engineSigner(t, EngineGo, PKCS1v15)
	for _, e := range Engines() {
		s := engineSigner(t, e, PKCS1v15)
		for name, body := range engineBodies {
			want, _ := golden.Sign(body)
			if got, err := s.Sign(body); err != nil || got != want {
				t.Errorf("%s %s: signature %.16s… err %v, want crypto/rsa's %.16s…", e, name, got, err, want)
			}
		}
	}
}

// TestEnginesOpenSSLInterop holds every engine to the openssl command line:
// openssl verifies each engine's signatures in both paddings, and for
// PKCS#1 v1.5 openssl's own signature of the same body is byte for byte the
// engine's.
func TestEnginesOpenSSLInterop(t *testing.T) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not found in PATH: interoperability not checked")
	}
	dir := t.TempDir()
	k := keys(t).a
	privPEM, err := EncodePrivateKeyPEM(k.key)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, _ := EncodePublicKeyPEM(k.Public())
	priv, pub := writeTemp(t, dir, "priv.pem", privPEM), writeTemp(t, dir, "pub.pem", pubPEM)
	body := writeTemp(t, dir, "body", engineBodies["request"])
	openssl := func(args ...string) []byte {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	opensslSig := filepath.Join(dir, "openssl.sig")
	openssl("dgst", "-sha256", "-sign", priv, "-out", opensslSig, body)
	want, err := os.ReadFile(opensslSig)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Engines() {
		for _, p := range []Padding{PKCS1v15, PSS} {
			t.Run(fmt.Sprintf("%s/%s", e, p), func(t *testing.T) {
				header, err := engineSigner(t, e, p).Sign(engineBodies["request"])
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := base64.StdEncoding.DecodeString(header)
				sig := writeTemp(t, dir, fmt.Sprintf("%s-%s.sig", e, p), raw)
				args := []string{"dgst", "-sha256", "-verify", pub, "-signature", sig}
				if p == PSS {
					args = append(args, "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_mgf1_md:sha256",
						"-sigopt", "rsa_pss_saltlen:digest")
				}
				if out := openssl(append(args, body)...); !bytes.Contains(out, []byte("Verified OK")) {
					t.Fatalf("openssl did not verify: %s", out)
				}
				if p == PKCS1v15 && !bytes.Equal(raw, want) {
					t.Error("signature differs from openssl's over the same body and key")
				}
			})
		}
	}
}

// TestEnginesConcurrentSign signs from many goroutines on one signer (the
// pipeline shares one per project); run with -race.
func TestEnginesConcurrentSign(t *testing.T) {
	for _, e := range Engines() {
		t.Run(string(e), func(t *testing.T) {
			s := engineSigner(t, e, PSS)
			v := NewRSAVerifier(PSS, s.Public())
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for i := range 8 {
				wg.Go(func() {
					for j := range 8 {
						body := fmt.Appendf(nil, `{"g":%d,"n":%d}`, i, j)
						sig, err := s.Sign(body)
						if err == nil {
							err = v.Verify(body, sig)
						}
						if err != nil {
							errs <- err
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestNewRSASignerWith(t *testing.T) {
	k := keys(t).a.key
	if got := NewRSASigner(k, PKCS1v15).Engine(); got != DefaultEngine {
		t.Errorf("NewRSASigner engine %s, want DefaultEngine %s", got, DefaultEngine)
	}
	if Engines()[0] != DefaultEngine {
		t.Errorf("Engines() = %v, want the default %s first", Engines(), DefaultEngine)
	}
	cases := []struct {
		engine Engine
		ok     bool
	}{
		{EngineGo, true},
		{EngineLibcrypto, DefaultEngine == EngineLibcrypto},
		{"boring", false},
		{"", false},
	}
	for _, c := range cases {
		s, err := NewRSASignerWith(c.engine, k, PKCS1v15)
		if (err == nil) != c.ok {
			t.Errorf("engine %q: err %v, want ok=%v", c.engine, err, c.ok)
		}
		if err != nil && (s != nil || !strings.Contains(err.Error(), string(c.engine))) {
			t.Errorf("engine %q: error %q does not name the engine (or a signer came back)", c.engine, err)
		}
		if err == nil && strings.Contains(s.String(), k.D.String()[:20]) {
			t.Errorf("engine %q: String leaks the key", c.engine)
		}
	}
}

func writeTemp(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// BenchmarkEngineSign is the CPU of one RSA-2048 signature of a request
// body per engine and padding (ns/op on one goroutine); the parallel
// variant divides the wall time by every core (signs/s = 1e9/ns per op).
func BenchmarkEngineSign(b *testing.B) {
	body := engineBodies["request"]
	for _, e := range Engines() {
		for _, p := range []Padding{PKCS1v15, PSS} {
			s := engineSigner(b, e, p)
			b.Run(fmt.Sprintf("engine=%s/padding=%s", e, p), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Sign(body); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("engine=%s/padding=%s/parallel", e, p), func(b *testing.B) {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := s.Sign(body); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
