package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/kafka"
)

// kafkaConn is a client of the configured brokers that remembers the last
// error of a connection to a broker, so that a call which ran out of time
// can say why: franz-go retries a failed dial until the call's context ends,
// and then returns only the context's error.
type kafkaConn struct {
	*kgo.Client
	cause *brokerErrors
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
	cause := &brokerErrors{}
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
	return c.cause.explain(err)
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

// brokerErrors is a kgo hook keeping the last failed dial, read or write of
// any broker connection.
type brokerErrors struct {
	mu   sync.Mutex
	last error
}

var (
	_ kgo.HookBrokerConnect = (*brokerErrors)(nil)
	_ kgo.HookBrokerWrite   = (*brokerErrors)(nil)
	_ kgo.HookBrokerRead    = (*brokerErrors)(nil)
)

func (b *brokerErrors) record(meta kgo.BrokerMetadata, what string, err error) {
	if err == nil {
		return
	}
	b.mu.Lock()
	b.last = fmt.Errorf("%s broker %s: %w", what, net.JoinHostPort(meta.Host, fmt.Sprint(meta.Port)), err)
	b.mu.Unlock()
}

// OnBrokerConnect records a failed dial.
func (b *brokerErrors) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	b.record(meta, "dial", err)
}

// OnBrokerWrite records a failed request write.
func (b *brokerErrors) OnBrokerWrite(meta kgo.BrokerMetadata, _ int16, _ int, _, _ time.Duration, err error) {
	b.record(meta, "write to", err)
}

// OnBrokerRead records a failed response read.
func (b *brokerErrors) OnBrokerRead(meta kgo.BrokerMetadata, _ int16, _ int, _, _ time.Duration, err error) {
	b.record(meta, "read from", err)
}

// explain adds the last broker error to err when err is a context's end.
func (b *brokerErrors) explain(err error) error {
	if err == nil || !(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return err
	}
	b.mu.Lock()
	last := b.last
	b.mu.Unlock()
	if last == nil {
		return err
	}
	return fmt.Errorf("%w (last broker error: %v)", err, last)
}
