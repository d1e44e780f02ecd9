package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// progress tracks how far each assigned partition of the sessions topic has
// been read against its end offset at assignment, so readiness can wait
// until the pending set (and the shared tracker) hold every session.
type progress struct {
	mu     sync.Mutex
	joined bool
	target map[int32]int64 // end offset at assignment; absent when reached
}

func newProgress() *progress { return &progress{target: map[int32]int64{}} }

// assigned records the end offsets of newly assigned partitions.
func (p *progress) assigned(ends map[int32]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.joined = true
	for part, end := range ends {
		p.target[part] = end
	}
}

func (p *progress) released(parts []int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, part := range parts {
		delete(p.target, part)
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
// pending set and the shared tracker know every session of its partitions.
// Use it as a readiness check so a restarted replica takes webhooks only
// then.
func (r *Reconciler) Ready(context.Context) error { return r.progress.err() }

// onAssigned looks up the end offsets of newly assigned partitions. When
// they cannot be listed the partitions count as read (readiness fails
// open: taking webhooks matters more than the replay guard).
func (r *Reconciler) onAssigned(ctx context.Context, cl *kgo.Client, assigned map[string][]int32) {
	parts := assigned[r.cfg.SessionsTopic]
	ends := map[int32]int64{}
	if len(parts) > 0 {
		adm := kadm.NewClient(cl) // not closed: it would close cl
		starts, err1 := adm.ListStartOffsets(ctx, r.cfg.SessionsTopic)
		listed, err2 := adm.ListEndOffsets(ctx, r.cfg.SessionsTopic)
		if err := errors.Join(err1, err2, starts.Error(), listed.Error()); err != nil {
			r.log.Warn("reconciler cannot list sessions topic offsets", slog.Any("error", err))
		} else {
			for _, part := range parts {
				s, _ := starts.Lookup(r.cfg.SessionsTopic, part)
				e, ok := listed.Lookup(r.cfg.SessionsTopic, part)
				if ok && e.Offset > s.Offset {
					ends[part] = e.Offset
				}
			}
		}
	}
	r.progress.assigned(ends)
	r.log.Info("reconciler partitions assigned", slog.Any("partitions", parts))
}
