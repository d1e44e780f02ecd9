package reconcile

import (
	"context"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// sweepEvery is how often, on Config.Now, the pending set forgets the
// sessions that fell behind the horizon.
const sweepEvery = time.Minute

// readFrom is the consumer's AdjustFetchOffsetsFn. The group never commits,
// so every newly assigned partition of the sessions topic comes with the
// reset offset; it is read instead from its first record stamped at or
// after the horizon's start: the offset onAssigned listed (so readiness
// compares the end with where the read starts), or, for a partition whose
// offsets it could not list, the first record after the horizon's start at
// this assignment. The time is taken on every assignment, so it moves on
// with a process that runs for weeks; a partition with no record since
// starts at its end.
func (r *Reconciler) readFrom(_ context.Context, offsets map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
	parts := offsets[r.cfg.SessionsTopic]
	for part := range parts {
		if from, ok := r.progress.start(part); ok {
			parts[part] = kgo.NewOffset().At(from)
			continue
		}
		parts[part] = kgo.NewOffset().AfterMilli(codec.ForgetBefore(r.cfg.Now(), r.cfg.Horizon).UnixMilli())
	}
	return offsets, nil
}

// sweep forgets the sessions whose last record fell behind the horizon at
// now, unless the last sweep, at last, was less than sweepEvery ago. It
// returns the time of the last sweep.
func (r *Reconciler) sweep(now, last time.Time) time.Time {
	if !last.IsZero() && now.Sub(last) < sweepEvery {
		return last
	}
	before := codec.ForgetBefore(now, r.cfg.Horizon)
	if n := r.pending.forget(before); n > 0 {
		r.metrics.forgotten.Add(float64(n))
		r.log.Info("reconciler forgot sessions behind the horizon", slog.Int("sessions", n), slog.Time("last_record_before", before))
	}
	return now
}
