package connector

import (
	"context"
	"crypto/rsa"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/signing"
)

// keyPair writes a generated RSA key pair into dir and returns the key and
// the paths of its PEM files.
func keyPair(t *testing.T, dir, name string) (k *rsa.PrivateKey, priv, pub string) {
	t.Helper()
	k, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	priv, pub = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".pub.pem")
	if err := signing.WriteKeyPair(k, priv, pub); err != nil {
		t.Fatal(err)
	}
	return k, priv, pub
}

// loadConfig loads the smallest valid configuration plus set, with one
// generated key pair as the project's private key and the service's
// public key. The pair is written outside t.TempDir, whose name holds the
// test's, which may hold a comma: the separator of
// PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES.
func loadConfig(t *testing.T, set map[string]string) *config.Config {
	t.Helper()
	dir, err := os.MkdirTemp("", "connector-keys")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	_, priv, pub := keyPair(t, dir, "project")
	env := map[string]string{
		"PAYSESSION_API_BASE_URL":                 "https://pay.example.com",
		"PAYSESSION_API_PROJECT":                  "proj-1",
		"PAYSESSION_API_PRIVATE_KEY_FILE":         priv,
		"PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES": pub,
		"PAYSESSION_KAFKA_BROKERS":                "127.0.0.1:9092", // loopback: no TLS needed
	}
	for k, v := range set {
		env[k] = v
	}
	c, err := config.Load(context.Background(), envconfig.MapLookuper(env))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSignerAndVerifier: the project's signer and the webhook verifier
// load their keys; a signature of the one verifies under the other (the
// test's service key is the project's public key).
func TestSignerAndVerifier(t *testing.T) {
	c := loadConfig(t, nil)
	s, _, err := signers(c, signing.NewGate(1))
	if err != nil {
		t.Fatal(err)
	}
	v, err := webhookVerifier(c.API)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"type":"payment_finished"}`)
	sig, err := s.Sign(body)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(body, sig); err != nil {
		t.Errorf("verify own signature: %v", err)
	}
}

// TestExtraProjectSigners: each project of PAYSESSION_API_EXTRA_PROJECTS
// signs with its own key.
func TestExtraProjectSigners(t *testing.T) {
	k, pem, _ := keyPair(t, t.TempDir(), "shop2")
	c := loadConfig(t, map[string]string{"PAYSESSION_API_EXTRA_PROJECTS": "shop2=" + pem})
	_, ps, err := signers(c, signing.NewGate(1))
	if err != nil || len(ps) != 1 || ps[0].ID != "shop2" {
		t.Fatalf("signers() projects = %+v, %v", ps, err)
	}
	sig, err := ps[0].Signer.Sign([]byte("{}"))
	if err != nil || signing.NewRSAVerifier(signing.PKCS1v15, &k.PublicKey).Verify([]byte("{}"), sig) != nil {
		t.Fatalf("shop2 does not sign with its own key: %v", err)
	}
}

// TestEverySignerIsBehindTheGate: the default project's signer and each
// further project's wait for a slot of the one gate (processors.go), so
// the signatures of all projects together never take every processor.
func TestEverySignerIsBehindTheGate(t *testing.T) {
	_, pem, _ := keyPair(t, t.TempDir(), "shop2")
	c := loadConfig(t, map[string]string{"PAYSESSION_API_EXTRA_PROJECTS": "shop2=" + pem})
	gate := signing.NewGate(1)
	def, ps, err := signers(c, gate)
	if err != nil || len(ps) != 1 {
		t.Fatalf("signers() = %v, %+v, %v", def, ps, err)
	}
	for name, s := range map[string]signing.Signer{"default project": def, "shop2": ps[0].Signer} {
		held := make(chan struct{})
		release := make(chan struct{})
		holder := gate.Limit(signerFunc(func() { close(held); <-release }))
		go holder.Sign(nil) //nolint:errcheck // signerFunc never fails
		<-held              // the gate's one slot is taken
		signed := make(chan struct{})
		go func() {
			defer close(signed)
			if _, err := s.Sign([]byte("{}")); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}()
		select {
		case <-signed:
			t.Errorf("%s signed while the gate's only slot was taken", name)
		case <-time.After(50 * time.Millisecond):
		}
		close(release)
		<-signed
	}
}

// signerFunc runs f and signs nothing.
type signerFunc func()

func (f signerFunc) Sign([]byte) (string, error) { f(); return "", nil }
