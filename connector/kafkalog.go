package connector

import (
	"context"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/plugin/kslog"
)

// kafkaLogger hands franz-go's own log lines (rebalances, fencing,
// transaction errors inside the client) to the connector's logger. franz-go
// logs every transaction's end at info, so below debug only its warnings and
// errors pass; at debug, its info lines too (its own debug level is a trace
// of every request and stays off).
type kafkaLogger struct {
	kgo.Logger
	level kgo.LogLevel
}

// Level is the most verbose level franz-go asks the logger for.
func (l kafkaLogger) Level() kgo.LogLevel { return l.level }

// newKafkaLogger returns the franz-go logger of log.
func newKafkaLogger(log *slog.Logger) kgo.Logger {
	level := kgo.LogLevelWarn
	if log.Enabled(context.Background(), slog.LevelDebug) {
		level = kgo.LogLevelInfo
	}
	return kafkaLogger{Logger: kslog.New(log.With("part", "kafka")), level: level}
}
