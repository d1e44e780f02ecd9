package config_test

import (
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/logging"
	"github.com/paysession/paysession/internal/signing"
)

// TestSpellingsAgreeWithTheirReaders: Load accepts a log level or a
// signature padding exactly when the package that reads it (the logger,
// the signer) does, so a value that loads never fails at start and a value
// those packages take is never refused. config describes; it does not
// import them.
func TestSpellingsAgreeWithTheirReaders(t *testing.T) {
	tests := []struct {
		variable string
		values   []string
		reads    func(string) error
	}{
		{"PAYSESSION_LOG_LEVEL", []string{"debug", "info", "warn", "warning", "error", "DEBUG", " Warn ", "trace", "fatal", "inf"},
			func(s string) error { _, err := logging.ParseLevel(s); return err }},
		{"PAYSESSION_API_SIGNATURE_PADDING", []string{"pkcs1v15", "pkcs1", "PKCS1v15", "pss", "PSS", "Pss", "pkcs1V15", "oaep", "none"},
			func(s string) error { _, err := signing.ParsePadding(s); return err }},
	}
	for _, tc := range tests {
		for _, v := range tc.values {
			t.Run(tc.variable+"="+v, func(t *testing.T) {
				env := minimal(t)
				env[tc.variable] = v
				_, err := load(t, env)
				loads := err == nil || !strings.Contains(err.Error(), tc.variable)
				if reads := tc.reads(v) == nil; loads != reads {
					t.Errorf("Load accepts %q: %v (%v); its reader accepts it: %v", v, loads, err, reads)
				}
			})
		}
	}
}
