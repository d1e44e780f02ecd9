package topics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/paysession/paysession/internal/outbound"
)

// DefaultRefreshInterval is how often Live.Run reads the topics' limits
// again: a max.message.bytes raised or lowered on the cluster reaches the
// connector's writers within it (and their producers at their next
// transaction or record, see outbound.Pin), without a restart.
const DefaultRefreshInterval = time.Minute

// Live holds each topic's max.message.bytes as last read from the cluster:
// first from Verify's report, then from Run's reads. A read that changes a
// limit swaps the whole set at once; readers see the old set or the new
// one, never a mix. It implements outbound.Moving; safe for concurrent use.
type Live struct {
	cur   atomic.Pointer[limitSet]
	wake  chan struct{}
	names []string // every topic read again: those of the report that exist
}

// limitSet maps a topic to its max.message.bytes (topics not known: absent).
type limitSet map[string]int

// MaxMessageBytes implements outbound.Limits: DefaultMaxMessageBytes for a
// topic not known.
func (s limitSet) MaxMessageBytes(topic string) int {
	if n, ok := s[topic]; ok && n > 0 {
		return n
	}
	return DefaultMaxMessageBytes
}

// NewLive returns the limits of rep's topics whose configuration it read;
// Refresh reads those of every topic of rep that exists (one whose
// configuration could not be read then may be readable later).
func NewLive(rep Report) *Live {
	s := limitSet{}
	l := &Live{wake: make(chan struct{}, 1)}
	for _, t := range rep.Topics {
		if t.ConfigsKnown && t.MaxMessageBytes > 0 {
			s[t.Topic] = t.MaxMessageBytes
		}
		if t.Exists {
			l.names = append(l.names, t.Topic)
		}
	}
	l.cur.Store(&s)
	return l
}

// MaxMessageBytes returns topic's limit as last read.
func (l *Live) MaxMessageBytes(topic string) int { return l.cur.Load().MaxMessageBytes(topic) }

// Now returns the limits as last read; a later read does not change them.
func (l *Live) Now() outbound.Limits { return *l.cur.Load() }

// Suspect asks Run to read the limits again now rather than at its next
// interval: a produce failed with MESSAGE_TOO_LARGE, so a limit was likely
// lowered.
func (l *Live) Suspect() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Refresh reads the max.message.bytes of every topic known and swaps them in
// when one changed; it reports the topics whose limit changed. A topic whose
// configuration cannot be read keeps its last limit.
func (l *Live) Refresh(ctx context.Context, adm *kadm.Client) ([]string, error) {
	old := *l.cur.Load()
	if len(l.names) == 0 {
		return nil, nil
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, l.names...)
	var shards *kadm.ShardErrors
	if err != nil && (!errors.As(err, &shards) || shards.AllFailed) {
		return nil, fmt.Errorf("describe topic configs: %w", err)
	}
	next := maps.Clone(old)
	var changed []string
	for _, rc := range rcs {
		if rc.Err != nil {
			continue
		}
		var t TopicReport
		applyConfigs(&t, rc.Configs)
		if n := t.MaxMessageBytes; n > 0 && n != old[rc.Name] {
			next[rc.Name] = n
			changed = append(changed, rc.Name)
		}
	}
	if len(changed) > 0 {
		l.cur.Store(&next)
	}
	return changed, nil
}

// Run refreshes the limits every interval (DefaultRefreshInterval when not
// positive), and at once after Suspect, until ctx ends. adm is called for
// each read (the connector's producer rebuilds its client). A failed read
// keeps the limits and is logged.
func (l *Live) Run(ctx context.Context, adm func() *kadm.Client, interval time.Duration, log *slog.Logger) error {
	if interval <= 0 {
		interval = DefaultRefreshInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-l.wake:
		}
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		changed, err := l.Refresh(rctx, adm())
		cancel()
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("reading the topics' max.message.bytes failed; keeping the last limits", slog.Any("error", err))
		case len(changed) > 0:
			for _, topic := range changed {
				log.Info("topic limit changed; the writers follow it", slog.String("topic", topic),
					slog.Int("max_message_bytes", l.MaxMessageBytes(topic)))
			}
		}
	}
}
