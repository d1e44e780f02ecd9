package config_test

import (
	"strings"
	"testing"
)

// TestInsecureTransportsNeedConsent: a plain http:// API URL that leaves the
// machine, SASL PLAIN without TLS, and Kafka without TLS to a broker that is
// not loopback, are refused at load unless the variable that says so is
// set; the error names that variable.
func TestInsecureTransportsNeedConsent(t *testing.T) {
	plain := map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "PLAIN", "PAYSESSION_KAFKA_SASL_USERNAME": "u",
		"PAYSESSION_KAFKA_SASL_PASSWORD": "p"}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name    string
		set     map[string]string
		wantErr string // "" = loads
	}{
		{"https", map[string]string{"PAYSESSION_API_BASE_URL": "https://pay.example.com"}, ""},
		{"http to a remote host", map[string]string{"PAYSESSION_API_BASE_URL": "http://pay.example.com"},
			"PAYSESSION_API_BASE_URL: plain http:// to pay.example.com would send signed requests unencrypted; use https://, or set PAYSESSION_API_ALLOW_INSECURE_HTTP=true"},
		{"http to a private address", map[string]string{"PAYSESSION_API_BASE_URL": "http://10.0.0.7:8080"}, "PAYSESSION_API_ALLOW_INSECURE_HTTP"},
		{"http to a look-alike of loopback", map[string]string{"PAYSESSION_API_BASE_URL": "http://127.0.0.1.example.com"}, "PAYSESSION_API_ALLOW_INSECURE_HTTP"},
		{"http to a remote host, allowed", map[string]string{"PAYSESSION_API_BASE_URL": "http://pay.example.com",
			"PAYSESSION_API_ALLOW_INSECURE_HTTP": "true"}, ""},
		{"http to 127.0.0.1", map[string]string{"PAYSESSION_API_BASE_URL": "http://127.0.0.1:41234"}, ""},
		{"http to 127.8.9.10", map[string]string{"PAYSESSION_API_BASE_URL": "http://127.8.9.10:41234"}, ""},
		{"http to localhost", map[string]string{"PAYSESSION_API_BASE_URL": "http://LocalHost:8080"}, ""},
		{"http to ::1", map[string]string{"PAYSESSION_API_BASE_URL": "http://[::1]:8080"}, ""},
		{"registry credentials over http to a remote host", map[string]string{"PAYSESSION_API_BASE_URL": "https://pay.example.com",
			"PAYSESSION_REGISTRY_URL": "http://registry.example.com:8081", "PAYSESSION_REGISTRY_USERNAME": "u",
			"PAYSESSION_REGISTRY_PASSWORD": "p"}, "PAYSESSION_REGISTRY_URL: plain http:// to registry.example.com would send the registry password in clear; use https://, or set PAYSESSION_REGISTRY_ALLOW_INSECURE_HTTP=true"},
		{"registry credentials over http, allowed", map[string]string{"PAYSESSION_API_BASE_URL": "https://pay.example.com",
			"PAYSESSION_REGISTRY_URL": "http://registry.example.com:8081", "PAYSESSION_REGISTRY_USERNAME": "u",
			"PAYSESSION_REGISTRY_PASSWORD": "p", "PAYSESSION_REGISTRY_ALLOW_INSECURE_HTTP": "true"}, ""},
		{"registry over http without credentials", map[string]string{"PAYSESSION_API_BASE_URL": "https://pay.example.com",
			"PAYSESSION_REGISTRY_URL": "http://registry.example.com:8081"}, ""},
		{"registry credentials over http to loopback", map[string]string{"PAYSESSION_API_BASE_URL": "https://pay.example.com",
			"PAYSESSION_REGISTRY_URL": "http://127.0.0.1:8081", "PAYSESSION_REGISTRY_USERNAME": "u",
			"PAYSESSION_REGISTRY_PASSWORD": "p"}, ""},
		{"sasl plain without tls", plain,
			"PAYSESSION_KAFKA_SASL_MECHANISM: PLAIN without TLS sends the password in clear; set PAYSESSION_KAFKA_TLS_ENABLED=true, use SCRAM-SHA-256/512, or set PAYSESSION_KAFKA_ALLOW_INSECURE_SASL=true"},
		{"sasl plain, lower case, without tls", with(plain, "PAYSESSION_KAFKA_SASL_MECHANISM", "plain"), "PAYSESSION_KAFKA_ALLOW_INSECURE_SASL"},
		{"sasl plain without tls, allowed", with(plain, "PAYSESSION_KAFKA_ALLOW_INSECURE_SASL", "true"), ""},
		{"sasl plain over tls", with(plain, "PAYSESSION_KAFKA_TLS_ENABLED", "true"), ""},
		{"sasl scram without tls", with(plain, "PAYSESSION_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512"), ""},
		{"kafka without tls to remote brokers", map[string]string{"PAYSESSION_KAFKA_BROKERS": "kafka-0:9092, 127.0.0.1:9093,kafka-1.kafka:9092"},
			"PAYSESSION_KAFKA_TLS_ENABLED: false, but brokers kafka-0:9092, kafka-1.kafka:9092 are not loopback: commands, which carry card numbers and security codes, " +
				"and every outcome would cross the network unencrypted; set PAYSESSION_KAFKA_TLS_ENABLED=true, or set PAYSESSION_KAFKA_ALLOW_PLAINTEXT=true"},
		{"kafka without tls to a private address", map[string]string{"PAYSESSION_KAFKA_BROKERS": "10.0.0.7:9092"}, "PAYSESSION_KAFKA_ALLOW_PLAINTEXT"},
		{"kafka without tls to a look-alike of loopback", map[string]string{"PAYSESSION_KAFKA_BROKERS": "127.0.0.1.nip.io:9092"}, "PAYSESSION_KAFKA_ALLOW_PLAINTEXT"},
		{"kafka without tls to remote brokers, allowed", map[string]string{"PAYSESSION_KAFKA_BROKERS": "kafka-0:9092",
			"PAYSESSION_KAFKA_ALLOW_PLAINTEXT": "true"}, ""},
		{"kafka with tls to remote brokers", map[string]string{"PAYSESSION_KAFKA_BROKERS": "kafka-0:9092", "PAYSESSION_KAFKA_TLS_ENABLED": "true"}, ""},
		{"kafka without tls to loopback brokers", map[string]string{"PAYSESSION_KAFKA_BROKERS": "127.0.0.1:9092,127.8.9.10:9092,[::1]:9093,LocalHost:9094"}, ""},
		{"sasl plain allowed without tls, remote brokers not", with(plain, "PAYSESSION_KAFKA_ALLOW_INSECURE_SASL", "true",
			"PAYSESSION_KAFKA_BROKERS", "kafka-0:9092"), "PAYSESSION_KAFKA_ALLOW_PLAINTEXT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := minimal(t)
			for k, v := range tc.set {
				env[k] = v
			}
			_, err := load(t, env)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("loaded, want an error with %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("error %v\nwant it to contain %q", err, tc.wantErr)
			}
		})
	}
}

// TestInsecureSwitchesWarn: what an INSECURE switch lets through is still
// reported, as a warning naming the variable, for the start to log.
func TestInsecureSwitchesWarn(t *testing.T) {
	env := minimal(t)
	env["PAYSESSION_KAFKA_BROKERS"] = "kafka-0:9092,127.0.0.1:9093"
	env["PAYSESSION_KAFKA_ALLOW_PLAINTEXT"] = "true"
	c, err := load(t, env)
	if err != nil {
		t.Fatal(err)
	}
	want := "PAYSESSION_KAFKA_TLS_ENABLED: false with brokers kafka-0:9092 that are not loopback"
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], want) {
		t.Errorf("warnings %q, want one with %q", w, want)
	}
	c, err = load(t, minimal(t))
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("loopback brokers: warnings %q, want none", w)
	}
}
