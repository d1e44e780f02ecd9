package kafka_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/kafka"
)

// TestOAuthBearerReadsTokenFileEachTime: every authentication sends the
// token the file holds then, so a rotated token is used on the next
// connection.
func TestOAuthBearerReadsTokenFileEachTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte("first.jwt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := loadKafka(t, map[string]string{
		"PAYSESSION_KAFKA_SASL_MECHANISM":  "OAUTHBEARER",
		"PAYSESSION_KAFKA_SASL_TOKEN_FILE": path,
		"PAYSESSION_KAFKA_TLS_ENABLED":     "true",
	})
	m := saslMechanism(t, k)
	if m.Name() != "OAUTHBEARER" {
		t.Fatalf("mechanism %s", m.Name())
	}
	for _, token := range []string{"first.jwt", "second.jwt"} {
		if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, msg, err := m.Authenticate(context.Background(), "broker:9093")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(msg), "auth=Bearer "+token+"\x01") {
			t.Errorf("client message %q does not carry %s", msg, token)
		}
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Authenticate(context.Background(), "broker:9093"); err == nil || !strings.Contains(err.Error(), "PAYSESSION_KAFKA_SASL_TOKEN_FILE") {
		t.Errorf("empty token file: err %v, want one naming PAYSESSION_KAFKA_SASL_TOKEN_FILE", err)
	}
}

// saslMechanism returns the one SASL mechanism of k's client options.
func saslMechanism(t *testing.T, k config.Kafka) sasl.Mechanism {
	t.Helper()
	opts, err := kafka.ClientOpts(k)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	mechs, _ := cl.OptValue(kgo.SASL).([]sasl.Mechanism)
	if len(mechs) != 1 {
		t.Fatalf("%d SASL mechanisms, want 1", len(mechs))
	}
	return mechs[0]
}
