package connector

import (
	"strings"
	"testing"
)

func TestLoggerRedactsConfiguredKeys(t *testing.T) {
	c := loadConfig(t, map[string]string{"PAYSESSION_LOG_REDACT_KEYS": "merchant_note", "PAYSESSION_LOG_FORMAT": "text"})
	var b strings.Builder
	NewLogger(&b, c.Log).Info("x", "merchant_note", "private words", "card", "4111111111111111")
	if out := b.String(); strings.Contains(out, "private words") || strings.Contains(out, "4111111111111111") {
		t.Errorf("leak: %s", out)
	}
}
