package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/header"
)

// seedParked rebuilds the parked set from the retry topic: the records
// between the group's committed offsets and the ends of the retry partitions
// are the commands parked and not yet consumed back. Run at the start of a
// session and after a rebalance, it keeps a session's order across restarts.
// It is best effort, bounded by a few seconds.
func (p *Pipeline) seedParked(ctx context.Context, cl *kgo.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl) // not closed: it would close cl
	committed, err := adm.FetchOffsetsForTopics(ctx, p.cfg.GroupID, p.cfg.Topics.Retry)
	if err != nil {
		return fmt.Errorf("fetch retry offsets: %w", err)
	}
	ends, err := adm.ListEndOffsets(ctx, p.cfg.Topics.Retry)
	if err != nil {
		return fmt.Errorf("list retry end offsets: %w", err)
	}
	from := map[int32]kgo.Offset{}
	want := map[int32]int64{}
	ends.Each(func(e kadm.ListedOffset) {
		start := kgo.NewOffset().AtStart()
		at := int64(0)
		if c, ok := committed.Lookup(e.Topic, e.Partition); ok && c.At >= 0 {
			start, at = kgo.NewOffset().At(c.At), c.At
		}
		if e.Err == nil && e.Offset > at {
			from[e.Partition], want[e.Partition] = start, e.Offset
		}
	})
	p.parked.reset()
	if len(from) == 0 {
		return nil
	}
	pairs, err := p.readParked(ctx, map[string]map[int32]kgo.Offset{p.cfg.Topics.Retry: from}, want)
	p.parked.apply(nil, pairs)
	p.log.Info("parked commands found in the retry topic", slog.Int("commands", len(pairs)))
	return err
}

// readParked reads retry records from the given offsets until each partition
// reaches its end offset (its last offset may be a transaction marker, so a
// short idle period also ends the read).
func (p *Pipeline) readParked(ctx context.Context, from map[string]map[int32]kgo.Offset, ends map[int32]int64) ([]laneKeyPair, error) {
	opts := append(append([]kgo.Opt{}, p.cfg.Kafka...), kgo.ConsumePartitions(from),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(200*time.Millisecond))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("retry reader: %w", err)
	}
	defer cl.Close()
	var pairs []laneKeyPair
	for len(ends) > 0 {
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return pairs, ctx.Err()
		}
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			lane, _ := header.Get(r, header.Lane)
			key, _ := header.Get(r, header.Key)
			if lane != "" && key != "" {
				pairs = append(pairs, laneKeyPair{lane, key})
			}
			if r.Offset+2 >= ends[r.Partition] { // last record, or last before a marker
				delete(ends, r.Partition)
			}
		})
		if n == 0 {
			break // idle: only markers left
		}
	}
	return pairs, nil
}
