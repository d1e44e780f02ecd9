package logging

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/paysession/paysession/internal/sensitive"
)

const masked = "[redacted]"

// DefaultSensitiveKeys returns the attribute names whose values are always
// masked: every name of a card security code (sensitive.SecurityCodeNames)
// and of secrets. Keys match as sensitive.Names match: by words in any case
// and spelling, so "card_security_code", "Security_Code", "SECURITYCODE" and
// "securityCode" match "security_code", and "recurring_token" matches
// "token" but "tokenized" does not.
func DefaultSensitiveKeys() []string {
	return append(sensitive.SecurityCodeNames(),
		"pan", "password", "passwd", "secret", "private_key", "api_key",
		"token", "authorization", "cookie", "credential", "credentials",
	)
}

// RedactingHandler wraps a slog.Handler and masks secrets before the wrapped
// handler sees them: the message and every string (also inside errors, groups,
// LogValuers and values marshalled as JSON) go through RedactString; values of
// sensitive attributes, and everything under a sensitive group, become
// "[redacted]"; integers that are Luhn-valid 12–19 digit numbers are masked.
type RedactingHandler struct {
	next      slog.Handler
	names     sensitive.Names // sensitive keys
	sensitive bool            // inside a sensitive group
}

// NewRedactingHandler wraps next. With no keys, DefaultSensitiveKeys apply.
func NewRedactingHandler(next slog.Handler, keys ...string) *RedactingHandler {
	if len(keys) == 0 {
		keys = DefaultSensitiveKeys()
	}
	return &RedactingHandler{next: next, names: sensitive.NewNames(keys...)}
}

// Enabled implements slog.Handler.
func (h *RedactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h *RedactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, RedactString(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a, h.sensitive))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs implements slog.Handler; the attributes are redacted once, here.
func (h *RedactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.attr(a, h.sensitive)
	}
	return &RedactingHandler{next: h.next.WithAttrs(red), names: h.names, sensitive: h.sensitive}
}

// WithGroup implements slog.Handler.
func (h *RedactingHandler) WithGroup(name string) slog.Handler {
	return &RedactingHandler{next: h.next.WithGroup(name), names: h.names, sensitive: h.sensitive || h.isSensitive(name)}
}

func (h *RedactingHandler) attr(a slog.Attr, inSensitive bool) slog.Attr {
	v := a.Value.Resolve()
	sens := inSensitive || h.isSensitive(a.Key)
	switch v.Kind() {
	case slog.KindGroup:
		g := v.Group()
		red := make([]slog.Attr, len(g))
		for i, c := range g {
			red[i] = h.attr(c, sens)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case slog.KindString:
		if sens {
			return slog.String(a.Key, masked)
		}
		return slog.String(a.Key, RedactString(v.String()))
	case slog.KindInt64, slog.KindUint64:
		if sens {
			return slog.String(a.Key, masked)
		}
		return h.number(a.Key, v)
	case slog.KindAny:
		if sens {
			return slog.String(a.Key, masked)
		}
		return slog.Any(a.Key, h.anyValue(v.Any()))
	}
	if sens {
		return slog.String(a.Key, masked)
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// number masks an integer that reads as a card number.
func (h *RedactingHandler) number(key string, v slog.Value) slog.Attr {
	var s string
	if v.Kind() == slog.KindInt64 {
		s = strconv.FormatInt(v.Int64(), 10)
	} else {
		s = strconv.FormatUint(v.Uint64(), 10)
	}
	if r := RedactString(s); r != s {
		return slog.String(key, r)
	}
	return slog.Attr{Key: key, Value: v}
}

func (h *RedactingHandler) isSensitive(key string) bool { return h.names.Match(key) }
