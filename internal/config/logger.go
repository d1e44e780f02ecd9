package config

import (
	"io"
	"log/slog"

	"github.com/paysession/paysession/internal/logging"
)

// Logger returns the redacting logger the Log section describes, writing to w.
func (c *Config) Logger(w io.Writer) *slog.Logger {
	return logging.New(w, c.Log.Level, c.Log.Format, c.Log.RedactKeys...)
}
