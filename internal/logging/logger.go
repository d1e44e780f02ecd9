package logging

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// New returns a logger writing to w at level (debug, info, warn, error;
// unknown means info) in format ("json" or "text"; unknown means json),
// behind a redacting handler that masks DefaultSensitiveKeys plus extraKeys.
// A line logged with a context that holds a span carries its trace_id and
// span_id (TraceHandler).
func New(w io.Writer, level, format string, extraKeys ...string) *slog.Logger {
	lvl, err := ParseLevel(level)
	if err != nil {
		lvl = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lvl}
	var h slog.Handler
	if strings.EqualFold(format, "text") {
		h = slog.NewTextHandler(w, opts)
	} else {
		h = slog.NewJSONHandler(w, opts)
	}
	keys := append(DefaultSensitiveKeys(), extraKeys...)
	return slog.New(NewRedactingHandler(NewTraceHandler(h), keys...))
}

// ParseLevel maps debug, info, warn or error (any case) to a slog.Level.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q: want debug, info, warn or error", s)
}
