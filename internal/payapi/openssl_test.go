package payapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/paysession/paysession/internal/signing"
)

// Signature interoperability with a tool no one here wrote: the openssl
// command line. The client's signature (captured from the request actually
// sent) must verify with `openssl dgst -sha256 -verify`, and a signature made
// by `openssl dgst -sha256 -sign` must verify through VerifyWebhook.

func requireOpenSSL(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not found in PATH: signature interoperability not checked")
	}
	return path
}

func runOpenSSL(t *testing.T, bin string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	return cmd.CombinedOutput()
}

func paddingArgs(p signing.Padding) []string {
	if p == signing.PSS {
		return []string{"-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_mgf1_md:sha256"}
	}
	return nil
}

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenSSLVerifiesClientSignature(t *testing.T) {
	bin := requireOpenSSL(t)
	k := key(t)
	dir := t.TempDir()
	pubPEM, err := signing.EncodePublicKeyPEM(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pub := writeFile(t, filepath.Join(dir, "pub.pem"), pubPEM)
	for _, p := range []signing.Padding{signing.PKCS1v15, signing.PSS} {
		t.Run(p.String(), func(t *testing.T) {
			fake := newFakeService(t, jsonResponse(http.StatusOK, string(readFixture(t, "v2/init_payout.response.json"))))
			c := newTestClient(t, fake.srv.URL, 2, func(cfg *Config) { cfg.Signer = signing.NewRSASigner(k, p) })
			if _, err := c.InitPayout(context.Background(), typicalPayout(), WithIdempotencyKey("openssl-1")); err != nil {
				t.Fatal(err)
			}
			req := fake.last(t)
			sig, err := base64.StdEncoding.DecodeString(req.Header.Get(HeaderSign))
			if err != nil {
				t.Fatalf("X-PARTNER-SIGN is not Base64: %v", err)
			}
			body := writeFile(t, filepath.Join(dir, p.String()+".body"), req.Body)
			sigFile := writeFile(t, filepath.Join(dir, p.String()+".sig"), sig)
			args := append([]string{"dgst", "-sha256", "-verify", pub, "-signature", sigFile}, paddingArgs(p)...)
			out, err := runOpenSSL(t, bin, append(args, body)...)
			if err != nil || !bytes.Contains(out, []byte("Verified OK")) {
				t.Fatalf("openssl rejected the client's signature: %v\n%s", err, out)
			}
			tampered := writeFile(t, filepath.Join(dir, p.String()+".tampered"), append(req.Body, ' '))
			if out, err := runOpenSSL(t, bin, append(args, tampered)...); err == nil {
				t.Fatalf("openssl accepted a signature over different bytes:\n%s", out)
			}
		})
	}
}

func TestGoVerifiesOpenSSLSignature(t *testing.T) {
	bin := requireOpenSSL(t)
	k := key(t)
	dir := t.TempDir()
	privPEM, err := signing.EncodePrivateKeyPEM(k)
	if err != nil {
		t.Fatal(err)
	}
	priv := writeFile(t, filepath.Join(dir, "priv.pem"), privPEM)
	body := readFixture(t, "webhooks/v1_payment_finished.json")
	bodyFile := writeFile(t, filepath.Join(dir, "webhook.json"), body)
	for _, p := range []signing.Padding{signing.PKCS1v15, signing.PSS} {
		t.Run(p.String(), func(t *testing.T) {
			sigFile := filepath.Join(dir, p.String()+".sig")
			args := append([]string{"dgst", "-sha256", "-sign", priv, "-out", sigFile}, paddingArgs(p)...)
			if out, err := runOpenSSL(t, bin, append(args, bodyFile)...); err != nil {
				t.Fatalf("openssl sign: %v\n%s", err, out)
			}
			raw, err := os.ReadFile(sigFile)
			if err != nil {
				t.Fatal(err)
			}
			header := base64.StdEncoding.EncodeToString(raw)
			v := signing.NewRSAVerifier(p, &k.PublicKey)
			wh, err := VerifyWebhook(v, body, header)
			if err != nil {
				t.Fatalf("Go rejected openssl's %s signature: %v", p, err)
			}
			if wh.Type != WebhookPaymentFinished || wh.Session.ID == "" {
				t.Errorf("parsed webhook %+v", wh)
			}
			if _, err := VerifyWebhook(v, append(body, ' '), header); !errors.Is(err, signing.ErrBadSignature) {
				t.Errorf("tampered body: err %v, want ErrBadSignature", err)
			}
		})
	}
}

// TestOpenSSLGeneratedKeys loads keys that openssl generated, in PKCS#8 and
// PKCS#1 form, signs through the client and verifies with openssl.
func TestOpenSSLGeneratedKeys(t *testing.T) {
	bin := requireOpenSSL(t)
	dir := t.TempDir()
	pkcs8 := filepath.Join(dir, "key8.pem")
	pkcs1 := filepath.Join(dir, "key1.pem")
	pub := filepath.Join(dir, "pub.pem")
	steps := [][]string{
		{"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", pkcs8},
		{"rsa", "-in", pkcs8, "-traditional", "-out", pkcs1},
		{"pkey", "-in", pkcs8, "-pubout", "-out", pub},
	}
	for _, s := range steps {
		if out, err := runOpenSSL(t, bin, s...); err != nil {
			t.Fatalf("openssl %v: %v\n%s", s, err, out)
		}
	}
	for _, keyPath := range []string{pkcs8, pkcs1} {
		t.Run(filepath.Base(keyPath), func(t *testing.T) {
			k, err := signing.LoadPrivateKey(keyPath)
			if err != nil {
				t.Fatal(err)
			}
			fake := newFakeService(t, jsonResponse(http.StatusOK, `{"status":"ok","session":{"id":"ps_1"}}`))
			c := newTestClient(t, fake.srv.URL, 1, func(cfg *Config) { cfg.Signer = signing.NewRSASigner(k, signing.PKCS1v15) })
			if _, err := c.Status(context.Background(), "ps_1"); err != nil {
				t.Fatal(err)
			}
			req := fake.last(t)
			sig, _ := base64.StdEncoding.DecodeString(req.Header.Get(HeaderSign))
			body := writeFile(t, filepath.Join(dir, "status.body"), req.Body)
			sigFile := writeFile(t, filepath.Join(dir, "status.sig"), sig)
			out, err := runOpenSSL(t, bin, "dgst", "-sha256", "-verify", pub, "-signature", sigFile, body)
			if err != nil {
				t.Fatalf("openssl verify: %v\n%s", err, out)
			}
		})
	}
}

// typicalPayout is the InitPayout request of the benchmark and interop tests.
func typicalPayout() InitPayoutRequest {
	return InitPayoutRequest{
		Instrument:   CardInstrument(testPAN, "12", "29", ""),
		Amount:       &Amount{Value: 150000, Currency: "rub"},
		Participants: testRecip,
		Customer:     &Customer{Reference: "cust-43"},
		Metadata:     []byte(`{"payroll":"2026-11","line":17}`),
	}
}
