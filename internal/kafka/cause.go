package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// BrokerErrors is a kgo hook (kgo.WithHooks) that keeps the last failed
// dial, request write or response read of any broker connection, so that a
// call which ran out of time can say why: franz-go retries a failed dial
// until the call's context ends, and then returns only the context's
// error.
type BrokerErrors struct {
	mu   sync.Mutex
	last error
}

var (
	_ kgo.HookBrokerConnect = (*BrokerErrors)(nil)
	_ kgo.HookBrokerWrite   = (*BrokerErrors)(nil)
	_ kgo.HookBrokerRead    = (*BrokerErrors)(nil)
)

func (b *BrokerErrors) record(meta kgo.BrokerMetadata, what string, err error) {
	if err == nil {
		return
	}
	b.mu.Lock()
	b.last = fmt.Errorf("%s broker %s: %w", what, net.JoinHostPort(meta.Host, strconv.Itoa(int(meta.Port))), err)
	b.mu.Unlock()
}

// OnBrokerConnect records a failed dial.
func (b *BrokerErrors) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	b.record(meta, "dial", err)
}

// OnBrokerWrite records a failed request write.
func (b *BrokerErrors) OnBrokerWrite(meta kgo.BrokerMetadata, _ int16, _ int, _, _ time.Duration, err error) {
	b.record(meta, "write to", err)
}

// OnBrokerRead records a failed response read.
func (b *BrokerErrors) OnBrokerRead(meta kgo.BrokerMetadata, _ int16, _ int, _, _ time.Duration, err error) {
	b.record(meta, "read from", err)
}

// Explain returns err with the last broker error added when err is only
// the end of a context (a deadline, a cancel) and so names no cause; any
// other error, and a context's end when no broker connection failed, is
// returned as it is.
func (b *BrokerErrors) Explain(err error) error {
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
