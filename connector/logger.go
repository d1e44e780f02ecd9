package connector

import (
	"io"
	"log/slog"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/logging"
)

// NewLogger returns the redacting logger that the Log section l describes,
// writing to w.
func NewLogger(w io.Writer, l config.Log) *slog.Logger {
	return logging.New(w, l.Level, l.Format, l.RedactKeys...)
}
