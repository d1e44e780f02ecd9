package kafka_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/kafka"
)

// loadKafka loads the Kafka section of a configuration whose Kafka
// variables are set, on top of two seed brokers: the variables of the
// other sections are the least that loads (no webhook, no key to read).
func loadKafka(t *testing.T, set map[string]string) config.Kafka {
	t.Helper()
	env := map[string]string{
		"PAYSESSION_API_BASE_URL":         "https://pay.example.com",
		"PAYSESSION_API_PROJECT":          "proj-1",
		"PAYSESSION_API_PRIVATE_KEY_FILE": os.DevNull,
		"PAYSESSION_WEBHOOK_ENABLED":      "false",
		"PAYSESSION_KAFKA_BROKERS":        "kafka-0:9092,kafka-1:9092",
		// The cases check the client options TLS off and on, to brokers
		// that are not loopback: off needs the consent.
		"PAYSESSION_KAFKA_ALLOW_PLAINTEXT": "true",
	}
	for k, v := range set {
		env[k] = v
	}
	c, err := config.Load(context.Background(), envconfig.MapLookuper(env))
	if err != nil {
		t.Fatal(err)
	}
	return c.Kafka
}

// tlsFiles writes a generated CA certificate and a client key pair it signed.
func tlsFiles(t *testing.T) (ca, cert, key string) {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	cliKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	cliTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "connector"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	cliDER, err := x509.CreateCertificate(rand.Reader, cliTmpl, caTmpl, &cliKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(cliKey)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("client.pem", "CERTIFICATE", cliDER), write("client.key", "EC PRIVATE KEY", keyDER)
}

func TestClientOpts(t *testing.T) {
	ca, cert, key := tlsFiles(t)
	notPEM := filepath.Join(t.TempDir(), "garbage.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		set      map[string]string
		wantErr  string
		wantTLS  bool
		wantMTLS bool
		wantSASL string
	}{
		{"plaintext", nil, "", false, false, ""},
		{"tls with system roots", map[string]string{"PAYSESSION_KAFKA_TLS_ENABLED": "true"}, "", true, false, ""},
		{"mutual tls", map[string]string{"PAYSESSION_KAFKA_TLS_ENABLED": "true", "PAYSESSION_KAFKA_TLS_CA_FILE": ca,
			"PAYSESSION_KAFKA_TLS_CERT_FILE": cert, "PAYSESSION_KAFKA_TLS_KEY_FILE": key}, "", true, true, ""},
		{"bad ca file", map[string]string{"PAYSESSION_KAFKA_TLS_ENABLED": "true", "PAYSESSION_KAFKA_TLS_CA_FILE": notPEM},
			"PAYSESSION_KAFKA_TLS_CA_FILE: no PEM certificate in " + notPEM, false, false, ""},
		{"bad key pair", map[string]string{"PAYSESSION_KAFKA_TLS_ENABLED": "true", "PAYSESSION_KAFKA_TLS_CERT_FILE": cert,
			"PAYSESSION_KAFKA_TLS_KEY_FILE": notPEM}, "PAYSESSION_KAFKA_TLS_CERT_FILE/PAYSESSION_KAFKA_TLS_KEY_FILE", false, false, ""},
		{"plain, insecure allowed", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "PLAIN", "PAYSESSION_KAFKA_SASL_USERNAME": "u",
			"PAYSESSION_KAFKA_SASL_PASSWORD": "p", "PAYSESSION_KAFKA_ALLOW_INSECURE_SASL": "true"}, "", false, false, "PLAIN"},
		{"plain over tls", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "PLAIN", "PAYSESSION_KAFKA_SASL_USERNAME": "u",
			"PAYSESSION_KAFKA_SASL_PASSWORD": "p", "PAYSESSION_KAFKA_TLS_ENABLED": "true"}, "", true, false, "PLAIN"},
		{"scram 256", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "scram-sha-256", "PAYSESSION_KAFKA_SASL_USERNAME": "u",
			"PAYSESSION_KAFKA_SASL_PASSWORD": "p"}, "", false, false, "SCRAM-SHA-256"},
		{"scram 512 over tls", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "PAYSESSION_KAFKA_SASL_USERNAME": "u",
			"PAYSESSION_KAFKA_SASL_PASSWORD": "p", "PAYSESSION_KAFKA_TLS_ENABLED": "true", "PAYSESSION_KAFKA_TLS_CA_FILE": ca}, "", true, false, "SCRAM-SHA-512"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := kafka.ClientOpts(loadKafka(t, tc.set))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cl.Close)
			if got := cl.OptValues(kgo.SeedBrokers)[0].([]string); strings.Join(got, ",") != "kafka-0:9092,kafka-1:9092" {
				t.Errorf("seeds %v", got)
			}
			tc2, _ := cl.OptValue(kgo.DialTLSConfig).(*tls.Config)
			if (tc2 != nil) != tc.wantTLS {
				t.Fatalf("tls config %v, want %v", tc2 != nil, tc.wantTLS)
			}
			if tc.wantMTLS && (tc2.RootCAs == nil || len(tc2.Certificates) != 1) {
				t.Errorf("mutual tls not loaded: roots %v, certs %d", tc2.RootCAs != nil, len(tc2.Certificates))
			}
			mechs, _ := cl.OptValue(kgo.SASL).([]sasl.Mechanism)
			if tc.wantSASL == "" && len(mechs) != 0 || tc.wantSASL != "" && (len(mechs) != 1 || mechs[0].Name() != tc.wantSASL) {
				t.Errorf("sasl %v, want %q", mechs, tc.wantSASL)
			}
		})
	}
}
