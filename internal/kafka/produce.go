package kafka

import (
	"context"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Producer is what ProduceAll writes through: a transactional session (a
// TxnSession, or a kgo.GroupTransactSession's Client).
type Producer interface {
	Produce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error))
	Flush(ctx context.Context) error
}

// ProduceAll produces recs into the open transaction of s, sends them at
// once rather than after the producer's linger (the commit waits for them
// anyway), and waits for every acknowledgement. It returns the first record
// that failed and its error, or (nil, the flush's error) when only the
// flush failed (ctx ended), or (nil, nil). ctx must bound every record:
// produce with it.
func ProduceAll(ctx context.Context, s Producer, recs []*kgo.Record) (*kgo.Record, error) {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstRec *kgo.Record
		firstErr error
	)
	for _, r := range recs {
		wg.Add(1)
		s.Produce(ctx, r, func(r *kgo.Record, err error) {
			defer wg.Done()
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstRec, firstErr = r, err
				}
				mu.Unlock()
			}
		})
	}
	if err := s.Flush(ctx); err != nil {
		// Records still buffered fail later (their context ends with
		// ctx); the transaction is aborted, so no need to wait for them.
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil {
			return firstRec, firstErr
		}
		return nil, fmt.Errorf("flush: %w", err)
	}
	wg.Wait()
	return firstRec, firstErr
}
