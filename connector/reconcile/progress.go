package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// progress tracks how far each assigned partition of the sessions topic has
// been read against its end offset at assignment, so readiness can wait
// until the pending set (and the shared tracker) hold every session. It
// also hands the consumer the offset its read of each newly assigned
// partition starts at, the one the end was compared with.
type progress struct {
	mu     sync.Mutex
	joined bool
	target map[int32]int64 // end offset at assignment; absent when reached
	from   map[int32]int64 // start offset of a newly assigned partition's read, until the consumer takes it
}

func newProgress() *progress {
	return &progress{target: map[int32]int64{}, from: map[int32]int64{}}
}

// assigned records newly assigned partitions: starts holds the offsets
// their reads start at (the first record of the horizon), ends the end
// offsets of those with anything to read from there.
func (p *progress) assigned(starts, ends map[int32]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.joined = true
	for part, from := range starts {
		p.from[part] = from
	}
	for part, end := range ends {
		p.target[part] = end
	}
}

// start returns, once, the offset the read of a newly assigned partition
// starts at; false when assigned recorded none.
func (p *progress) start(part int32) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	from, ok := p.from[part]
	delete(p.from, part)
	return from, ok
}

func (p *progress) released(parts []int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, part := range parts {
		delete(p.target, part)
		delete(p.from, part)
	}
}

// advance notes that offset of part was read (control records included).
func (p *progress) advance(part int32, offset int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if end, ok := p.target[part]; ok && offset+1 >= end {
		delete(p.target, part)
	}
}

func (p *progress) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.joined {
		return errors.New("reconciler has not joined its consumer group yet")
	}
	if n := len(p.target); n > 0 {
		return fmt.Errorf("reconciler still reading the sessions topic: %d partitions behind", n)
	}
	return nil
}

// Ready reports nil once the reconciler joined its group and read every
// assigned partition up to its end offset at assignment: from then on its
// pending set and the shared tracker know every session of its partitions
// whose last record is within the horizon.
// Use it as a readiness check so a restarted replica takes webhooks only
// then.
func (r *Reconciler) Ready(context.Context) error { return r.progress.err() }

// onAssigned looks up, for each newly assigned partition, the offset its
// read starts at (the first record within the horizon: see readFrom) and
// its end offset; a partition with nothing between the two is read at
// once. When they cannot be listed the partitions count as read
// (readiness fails open: taking webhooks matters more than the replay
// guard).
func (r *Reconciler) onAssigned(ctx context.Context, cl *kgo.Client, assigned map[string][]int32) {
	parts := assigned[r.cfg.SessionsTopic]
	from := codec.ForgetBefore(r.cfg.Now(), r.cfg.Horizon)
	begin, ends := map[int32]int64{}, map[int32]int64{}
	if len(parts) > 0 {
		adm := kadm.NewClient(cl) // not closed: it would close cl
		starts, err1 := adm.ListOffsetsAfterMilli(ctx, from.UnixMilli(), r.cfg.SessionsTopic)
		listed, err2 := adm.ListEndOffsets(ctx, r.cfg.SessionsTopic)
		if err := errors.Join(err1, err2, starts.Error(), listed.Error()); err != nil {
			r.log.Warn("reconciler cannot list sessions topic offsets", slog.Any("error", err))
		} else {
			for _, part := range parts {
				s, sok := starts.Lookup(r.cfg.SessionsTopic, part)
				e, eok := listed.Lookup(r.cfg.SessionsTopic, part)
				if sok {
					begin[part] = s.Offset
				}
				if sok && eok && e.Offset > s.Offset {
					ends[part] = e.Offset
				}
			}
		}
	}
	r.progress.assigned(begin, ends)
	r.log.Info("reconciler partitions assigned", slog.Any("partitions", parts), slog.Time("from", from))
}
