package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/kafka"
)

// kafkaConn is a client of the configured brokers that remembers the last
// error of a connection to a broker (kafka.BrokerErrors), so that a call
// which ran out of time can say why.
type kafkaConn struct {
	*kgo.Client
	cause *kafka.BrokerErrors
}

// kafkaClient builds a client of the configured Kafka connection, with
// extra options, for the subcommand cmd. On failure it says why on stderr
// and returns the exit code: exitUsage for a connection the configuration
// cannot describe (a CA file that does not load), exitFailed otherwise.
func kafkaClient(cmd string, k config.Kafka, stderr io.Writer, extra ...kgo.Opt) (*kafkaConn, int) {
	opts, err := kafka.ClientOpts(k)
	if err != nil {
		fmt.Fprintf(stderr, "connector %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	cause := &kafka.BrokerErrors{}
	cl, err := kgo.NewClient(append(append(opts, extra...), kgo.WithHooks(cause))...)
	if err != nil {
		fmt.Fprintf(stderr, "connector %s: %v\n", cmd, err)
		return nil, exitFailed
	}
	return &kafkaConn{Client: cl, cause: cause}, exitOK
}

// explain returns err with the last broker error added when err is only
// the end of a context (a deadline, a cancel) and so names no cause.
func (c *kafkaConn) explain(err error) error {
	return c.cause.Explain(err)
}

// brokersAnswer fails when no broker answers within connect, so that an
// unreachable cluster is an error naming its cause rather than a wait.
func (c *kafkaConn) brokersAnswer(ctx context.Context, connect time.Duration) error {
	pctx, cancel := context.WithTimeout(ctx, connect)
	defer cancel()
	if err := c.Ping(pctx); err != nil {
		return fmt.Errorf("no broker answered within %s: %w", connect, c.explain(err))
	}
	return nil
}
