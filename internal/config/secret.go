package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

const redacted = "[redacted]"

// Secret is a configuration value that must never be printed: it is read from
// VAR or from the file named by VAR_FILE. Every printing form shows
// "[redacted]" (or "" when unset); only Reveal returns the value.
type Secret struct {
	value string
	file  string // path the value came from, "" when from VAR
}

// NewSecret returns a Secret holding v (for tests and wiring).
func NewSecret(v string) Secret { return Secret{value: v} }

// Reveal returns the secret value; call it only where a credential is needed.
func (s Secret) Reveal() string { return s.value }

// IsSet reports whether a value was configured.
func (s Secret) IsSet() bool { return s.value != "" }

// File returns the path the value was read from, "" when it came from VAR.
func (s Secret) File() string { return s.file }

// String returns "[redacted]" when set, "" otherwise.
func (s Secret) String() string {
	if s.value == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return "config.Secret(" + s.String() + ")" }

// Format prints the mask for every verb.
func (s Secret) Format(f fmt.State, _ rune) { fmt.Fprint(f, s.String()) }

// LogValue prints the mask in structured logs.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText prints the mask in JSON and other encodings.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// loadSecret reads the secret of variable name (full name) from name or
// name_FILE; both set is an error. Error messages never carry the value.
func loadSecret(name string, l lookuper) (Secret, error) {
	v, hasValue := l.Lookup(name)
	path, hasFile := l.Lookup(name + "_FILE")
	switch {
	case hasValue && hasFile && v != "" && path != "":
		return Secret{}, fmt.Errorf("%s and %s_FILE: set only one", name, name)
	case hasFile && path != "":
		b, err := os.ReadFile(path)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return Secret{}, fmt.Errorf("%s_FILE: read %s: %w", name, path, err)
		}
		s := strings.TrimRight(string(b), "\r\n")
		if s == "" {
			return Secret{}, fmt.Errorf("%s_FILE: %s is empty", name, path)
		}
		return Secret{value: s, file: path}, nil
	}
	return Secret{value: v}, nil
}
