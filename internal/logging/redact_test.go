package logging_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/logging"
	"github.com/paysession/paysession/internal/sensitive"
)

const (
	pan     = "4111111111111111"
	pan2    = "5555555555554444"
	cvv     = "737"
	secret  = "Sup3rS3cretValue"
	pemText = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzz\n-----END RSA PRIVATE KEY-----"
)

type bankCard struct {
	Number       sensitive.PAN          `json:"number"`
	SecurityCode sensitive.SecurityCode `json:"security_code"`
	Holder       string                 `json:"holder"`
}

// TestLeaks logs card data and secrets in every shape a caller might and
// checks, in both formats, that none of it reaches the output.
func TestLeaks(t *testing.T) {
	cases := []struct {
		name    string
		log     func(l *slog.Logger)
		leaks   []string // must not appear
		visible []string // must appear (the log stays useful)
	}{
		{"pan in message", func(l *slog.Logger) { l.Info("charging " + pan) }, []string{pan}, []string{"411111******1111"}},
		{"pan in string attr", func(l *slog.Logger) { l.Info("x", "note", "card "+pan+" ok") }, []string{pan}, []string{"411111******1111"}},
		{"pan with spaces", func(l *slog.Logger) { l.Info("x", "note", "4111 1111 1111 1111") }, []string{"4111 1111 1111 1111"}, nil},
		{"pan with dashes", func(l *slog.Logger) { l.Info("x", "note", "5555-5555-5555-4444") }, []string{"5555-5555-5555-4444"}, nil},
		{"pan after a number", func(l *slog.Logger) { l.Info("x", "note", "qty 2 "+pan) }, []string{pan}, nil},
		{"pan as int", func(l *slog.Logger) { l.Info("x", "n", int64(4111111111111111)) }, []string{pan}, nil},
		{"pan in error", func(l *slog.Logger) { l.Error("x", "err", fmt.Errorf("bad card %s: %w", pan, errors.New("declined"))) }, []string{pan}, []string{"declined"}},
		{"pan in json body", func(l *slog.Logger) { l.Debug("x", "body", `{"number":"`+pan2+`"}`) }, []string{pan2}, nil},
		{"pan in bytes", func(l *slog.Logger) { l.Info("x", "body", []byte(`{"number":"`+pan+`"}`)) }, []string{pan}, nil},
		{"struct marshalled to json", func(l *slog.Logger) {
			l.Info("x", "card", bankCard{Number: pan, SecurityCode: cvv, Holder: "A HOLDER"})
		}, []string{pan, `"` + cvv + `"`, "=" + cvv}, []string{"A HOLDER"}},
		{"map with secrets", func(l *slog.Logger) {
			l.Info("x", "headers", map[string]any{"Authorization": "Bearer " + secret, "X-Trace": "t1", "cvc": 123})
		}, []string{secret, "123"}, []string{"t1"}},
		{"sensitive keys", func(l *slog.Logger) {
			l.Info("x", "security_code", cvv, "cvv", cvv, "sasl_password", secret, "clientSecret", secret,
				"recurring_token", secret, "private_key", pemText, "password_count", 3)
		}, []string{cvv, secret, "MIIEow", "password_count=3", `"password_count":3`}, []string{"recurring_token"}},
		{"sensitive group", func(l *slog.Logger) {
			l.Info("x", slog.Group("credentials", slog.String("user", secret)))
		}, []string{secret}, nil},
		{"with attrs and group", func(l *slog.Logger) {
			l.With("card", pan).WithGroup("secret").Info("x", "v", secret)
		}, []string{pan, secret}, nil},
		{"pem in text", func(l *slog.Logger) { l.Info("loaded " + pemText) }, []string{"MIIEow"}, []string{"[redacted PEM RSA PRIVATE KEY]"}},
		{"truncated pem", func(l *slog.Logger) { l.Info("x", "k", "-----BEGIN PRIVATE KEY-----\nMIIEow") }, []string{"MIIEow"}, nil},
		{"log valuer", func(l *slog.Logger) { l.Info("x", "pan", sensitive.PAN(pan), "code", sensitive.SecurityCode(cvv)) }, []string{pan, "=" + cvv, `"` + cvv + `"`}, nil},
		{"not a card stays", func(l *slog.Logger) {
			l.Info("x", "offset", int64(123456789012345), "phone", "79000000000", "idempotency_key", "key-4111")
		}, nil, []string{"123456789012345", "79000000000", "key-4111"}},
	}
	for _, format := range []string{"json", "text"} {
		for _, tc := range cases {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				var buf bytes.Buffer
				tc.log(logging.New(&buf, "debug", format))
				out := buf.String()
				if out == "" {
					t.Fatal("nothing logged")
				}
				for _, l := range tc.leaks {
					if strings.Contains(out, l) {
						t.Errorf("output leaks %q:\n%s", l, out)
					}
				}
				for _, v := range tc.visible {
					if !strings.Contains(out, v) {
						t.Errorf("output lacks %q:\n%s", v, out)
					}
				}
			})
		}
	}
}

func TestRedactString(t *testing.T) {
	cases := []struct{ in, want string }{
		{pan, "411111******1111"},
		{"card=" + pan + ";", "card=411111******1111;"},
		{"4111 1111 1111 1111", "411111******1111"},
		{"4111111111111112", "4111111111111112"}, // fails Luhn
		{"79000000000", "79000000000"},           // 11 digits
		{"2026-11-23", "2026-11-23"},
		{"no digits", "no digits"},
		{"x" + pan + "9999", "x********************"}, // 20 digits holding a card
		{"a " + pemText + " b", "a [redacted PEM RSA PRIVATE KEY] b"},
	}
	for _, tc := range cases {
		if got := logging.RedactString(tc.in); got != tc.want {
			t.Errorf("RedactString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExtraKeysAndLevels(t *testing.T) {
	var buf bytes.Buffer
	l := logging.New(&buf, "warn", "json", "merchant_note")
	l.Info("hidden")
	l.Warn("shown", "merchant_note", secret)
	out := buf.String()
	if strings.Contains(out, "hidden") || !strings.Contains(out, "shown") || strings.Contains(out, secret) {
		t.Errorf("unexpected output: %s", out)
	}
	for _, tc := range []struct {
		in   string
		want slog.Level
		ok   bool
	}{{"debug", slog.LevelDebug, true}, {"INFO", slog.LevelInfo, true}, {"warn", slog.LevelWarn, true}, {"error", slog.LevelError, true}, {"loud", 0, false}} {
		got, err := logging.ParseLevel(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseLevel(%q) = %v, %v", tc.in, got, err)
		}
	}
}
