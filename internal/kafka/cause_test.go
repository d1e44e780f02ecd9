package kafka

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestExplainAddsLastBrokerError: a context's end gets the last broker
// error; any other error is left as it is.
func TestExplainAddsLastBrokerError(t *testing.T) {
	b := &BrokerErrors{}
	if got := b.Explain(context.DeadlineExceeded); got != context.DeadlineExceeded {
		t.Errorf("no broker error yet: %v", got)
	}
	b.OnBrokerConnect(kgo.BrokerMetadata{Host: "127.0.0.1", Port: 9092}, 0, nil, errors.New("dial tcp: connection refused"))
	err := b.Explain(fmt.Errorf("write x: %w", context.DeadlineExceeded))
	if want := "write x: context deadline exceeded (last broker error: dial broker 127.0.0.1:9092: dial tcp: connection refused)"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("the explained error is no longer the context's")
	}
	other := errors.New("not enough replicas")
	if got := b.Explain(other); got != other {
		t.Errorf("other error changed: %v", got)
	}
}
