package connector

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaLoggerReachesTheOperator: franz-go's warnings reach the
// connector's log, marked part=kafka; its per-transaction info lines only
// when the connector logs at debug.
func TestKafkaLoggerReachesTheOperator(t *testing.T) {
	for _, tc := range []struct {
		level slog.Level
		want  kgo.LogLevel
	}{{slog.LevelInfo, kgo.LogLevelWarn}, {slog.LevelDebug, kgo.LogLevelInfo}} {
		var buf bytes.Buffer
		l := newKafkaLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tc.level})))
		if got := l.Level(); got != tc.want {
			t.Errorf("connector at %v: franz-go level %v, want %v", tc.level, got, tc.want)
		}
		l.Log(kgo.LogLevelWarn, "heartbeat errored", "group", "g1", "err", "REBALANCE_IN_PROGRESS")
		if out := buf.String(); !strings.Contains(out, "heartbeat errored") || !strings.Contains(out, "part=kafka") ||
			!strings.Contains(out, "group=g1") {
			t.Errorf("connector at %v: log %q lacks franz-go's warning with its attributes and part=kafka", tc.level, out)
		}
	}
}
