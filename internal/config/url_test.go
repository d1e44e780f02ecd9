package config_test

import (
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/config"
)

// TestConfigErrorsRedactURLs: a configuration error that echoes a URL (or a
// broker address) shows it without its userinfo, also when the string does
// not parse; the error still names the variable.
func TestConfigErrorsRedactURLs(t *testing.T) {
	const secret = "s3cr3t-pw"
	tests := []struct {
		name     string
		variable string
		value    string
		want     string // in the error
	}{
		{"base url with /api/vN", "PAYSESSION_API_BASE_URL", "https://user:" + secret + "@pay.example.com/api/v1", "https://xxxxx@pay.example.com/api/v1"},
		{"base url not http", "PAYSESSION_API_BASE_URL", "ftp://user:" + secret + "@pay.example.com", "ftp://xxxxx@pay.example.com"},
		{"base url that does not parse", "PAYSESSION_API_BASE_URL", "https://user:" + secret + "%zz@pay.example.com", "https://xxxxx@pay.example.com"},
		{"base url, password with a slash", "PAYSESSION_API_BASE_URL", "https://user:" + secret + "/x@pay.example.com", "https://xxxxx@pay.example.com"},
		{"base url, password with a hash", "PAYSESSION_API_BASE_URL", "https://user:" + secret + "#x@pay.example.com", "https://xxxxx@pay.example.com"},
		{"registry url not http", "PAYSESSION_REGISTRY_URL", "tcp://u:" + secret + "@registry.example:8081", "tcp://xxxxx@registry.example:8081"},
		{"registry url with credentials", "PAYSESSION_REGISTRY_URL", "https://u:" + secret + "@registry.example", "must not carry credentials"},
		{"broker with credentials", "PAYSESSION_KAFKA_BROKERS", "user:" + secret + "@kafka-0:9092", "xxxxx@kafka-0:9092"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := minimal(t)
			env[tc.variable] = tc.value
			_, err := load(t, env)
			if err == nil {
				t.Fatalf("%s=%s loaded, want an error", tc.variable, tc.value)
			}
			msg := err.Error()
			if strings.Contains(msg, secret) {
				t.Errorf("error leaks the password:\n%v", msg)
			}
			if !strings.Contains(msg, tc.variable+": ") || !strings.Contains(msg, tc.want) {
				t.Errorf("error %v\nwant it to name %s and contain %q", msg, tc.variable, tc.want)
			}
		})
	}
}

// TestRedactURL: userinfo becomes xxxxx; a string the parser cannot split
// keeps only its scheme and what follows its last '@'.
func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://pay.example.com/base", "https://pay.example.com/base"},
		{"https://user:pw@pay.example.com/base?q=1", "https://xxxxx@pay.example.com/base?q=1"},
		{"https://user@pay.example.com", "https://xxxxx@pay.example.com"},
		{"http://[::1]:8080/x", "http://[::1]:8080/x"},
		{"https://user:p%zz@host/x", "https://xxxxx@host/x"},
		{"https://user:pw@host/a@b", "https://xxxxx@b"},
		{"https://user:12/pw@host", "https://xxxxx@host"},
		{"user:pw@host:9092", "xxxxx@host:9092"},
		{"not a url", "not a url"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := config.RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
