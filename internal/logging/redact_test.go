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

// logCase logs something and names what must not and what must appear in
// the output.
type logCase struct {
	name    string
	log     func(l *slog.Logger)
	leaks   []string // must not appear
	visible []string // must appear (the log stays useful)
}

// runLogCases runs each case in the JSON and the text format.
func runLogCases(t *testing.T, cases []logCase) {
	t.Helper()
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

// TestLeaks logs card data and secrets in every shape a caller might and
// checks, in both formats, that none of it reaches the output.
func TestLeaks(t *testing.T) {
	cases := []logCase{
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
	runLogCases(t, cases)
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

// TestLeaksLooseForms logs the forms redaction used to let through: card
// numbers grouped by any single non-alphanumeric separator or JSON-escaped,
// sensitive attribute names in any case and spelling, and security codes in
// free text — in messages, string attributes, errors and marshalled values.
func TestLeaksLooseForms(t *testing.T) {
	// codeValue are the forms a logged value 737 takes (a bare "737" may be
	// part of the record's time).
	codeValue := []string{`:"737"`, `:737`, `=737`, `\"737\"`}
	cases := []logCase{
		{"dotted pan in message", func(l *slog.Logger) { l.Info("charging 4111.1111.1111.1111 now") },
			[]string{"4111.1111.1111.1111"}, []string{"411111******1111", "now"}},
		{"slashed pan in attr", func(l *slog.Logger) { l.Info("x", "note", "4111/1111/1111/1111") },
			[]string{"4111/1111/1111/1111"}, []string{"411111******1111"}},
		{"underscored pan in error", func(l *slog.Logger) { l.Error("x", "err", errors.New("card 4111_1111_1111_1111 declined")) },
			[]string{"4111_1111_1111_1111"}, []string{"declined"}},
		{"colon pan in bytes", func(l *slog.Logger) { l.Info("x", "body", []byte("5555:5555:5555:4444")) },
			[]string{"5555:5555:5555:4444"}, nil},
		{"no-break-space pan", func(l *slog.Logger) { l.Info("x", "note", "4111\u00a01111\u00a01111\u00a01111") },
			[]string{"4111\u00a01111"}, nil},
		{"json-escaped pan in a body", func(l *slog.Logger) { l.Info("x", "body", `{"number":"\u0034111111111111111"}`) },
			[]string{`u0034111111111111111`}, []string{"411111******1111"}},
		{"cvv in message", func(l *slog.Logger) { l.Info("retrying with cvv 737 now") },
			[]string{"cvv 737"}, []string{"cvv ***", "now"}},
		{"cvc with colon in error", func(l *slog.Logger) { l.Warn("x", "err", fmt.Errorf("api: cvc: 1234 rejected")) },
			[]string{"cvc: 1234"}, []string{"rejected"}},
		{"security code in attr text", func(l *slog.Logger) { l.Info("x", "note", "security code 737 given") },
			[]string{"code 737"}, []string{"given"}},
		{"json member in a string", func(l *slog.Logger) { l.Debug("x", "body", `{"Security_Code":"737"}`) },
			[]string{`737\"`, `737"}`}, nil},
		{"key Security_Code", func(l *slog.Logger) { l.Info("x", "Security_Code", "737") }, codeValue, nil},
		{"key SECURITY-CODE", func(l *slog.Logger) { l.Info("x", "SECURITY-CODE", "737") }, codeValue, nil},
		{"key SECURITYCODE", func(l *slog.Logger) { l.Info("x", "SECURITYCODE", "737") }, codeValue, nil},
		{"key securitycode", func(l *slog.Logger) { l.Info("x", "securitycode", 737) }, codeValue, nil},
		{"key CVN", func(l *slog.Logger) { l.Info("x", "CVN", "737") }, codeValue, nil},
		{"map key Cvv2", func(l *slog.Logger) { l.Info("x", "card", map[string]any{"Cvv2": "737", "holder": "A HOLDER"}) },
			codeValue, []string{"A HOLDER"}},
		{"digits stay", func(l *slog.Logger) {
			l.Info("batch 2026-11-24 took 1.234s", "status", "503", "addr", "10.0.0.12:9092", "note", "order 12345 qty 3")
		}, nil, []string{"2026-11-24", "1.234s", "503", "10.0.0.12:9092", "order 12345 qty 3"}},
	}
	runLogCases(t, cases)
}

// TestRedactStringLooseForms pins the masks of the loose forms.
func TestRedactStringLooseForms(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"dots", "4111.1111.1111.1111", "411111******1111"},
		{"slashes kept around", "a 4111/1111/1111/1111 b", "a 411111******1111 b"},
		{"underscores", "4111_1111_1111_1111", "411111******1111"},
		{"amex grouping", "3782 822463 10005", "378282*****0005"},
		{"number before a card keeps its separator", "qty-2/4111.1111.1111.1111", "qty-2/411111******1111"},
		{"long group among groups", "1 " + pan + "99999", "1 *********************"},
		{"escaped digits", `\u0034111111111111111`, "411111******1111"},
		{"cvv", "cvv 123", "cvv ***"},
		{"cvv2 with equals", "CVV2=123;", "CVV2=***;"},
		{"cvc colon", "cvc: 1234", "cvc: ***"},
		{"security code", "security code 123", "security code ***"},
		{"security_code json", `"security_code":"123"`, `"security_code":"***"`},
		{"card cvv camel", "cardCvv=123", "cardCvv=***"},
		{"cvv glued", "cvv123", "cvv***"},
		{"cvv then word", "cvv check 123", "cvv check 123"},
		{"five digits", "cvv 12345", "cvv 12345"},
		{"not a name", "recvv 123", "recvv 123"},
		{"timestamp", "2026-11-24T04:50:43Z", "2026-11-24T04:50:43Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := logging.RedactString(tc.in); got != tc.want {
				t.Errorf("RedactString(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestRedactStringFastPaths checks that text without card data costs no
// allocation: every log line passes through RedactString.
func TestRedactStringFastPaths(t *testing.T) {
	for _, s := range []string{
		"commit batch",
		"partition 3 offset 123456 lag 7",
		"session ps_1234567890123456 at 2026-11-24T04:50:43.123Z took 12.5ms",
	} {
		if n := testing.AllocsPerRun(100, func() { _ = logging.RedactString(s) }); n != 0 {
			t.Errorf("RedactString(%q) allocates %v times", s, n)
		}
	}
}

func BenchmarkRedactString(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"no digits", "committed batch of commands to the results topic"},
		{"digits", "partition 3 offset 1234567 lag 12 at 2026-11-24T04:50:43.123Z session ps_1234567890123456"},
		{"card", "charging 4111 1111 1111 1111 for order 12345"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = logging.RedactString(bc.s)
			}
		})
	}
}
