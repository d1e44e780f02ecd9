package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrOptions marks a transactional session that could not be built from its
// options: retrying cannot help.
var ErrOptions = errors.New("invalid kafka options")

// NewTransactSession builds a transactional consumer-group session from
// opts and initializes its producer id before it joins the group, waiting
// at most timeout (the transaction timeout). Initializing first fences a
// previous incarnation with the same transactional id and aborts its open
// transaction, which would otherwise hold the group's offset fetch
// (require_stable) until that transaction timed out. An error of the
// options wraps ErrOptions.
func NewTransactSession(timeout time.Duration, opts ...kgo.Opt) (*kgo.GroupTransactSession, error) {
	s, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := initProducerID(ctx, s.Client()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// initProducerID initializes cl's producer id, fencing a previous
// incarnation of its transactional id and aborting its open transaction.
func initProducerID(ctx context.Context, cl *kgo.Client) error {
	if _, _, err := cl.ProducerID(ctx); err != nil {
		return fmt.Errorf("init producer id: %w", err)
	}
	return nil
}
