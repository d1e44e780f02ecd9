package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// batch is one set of records taken together (held.go) and what became of
// them. It is finished completely (every record has an outcome or is
// parked) before its transaction ends, because that commits the offsets of
// all its records.
type batch struct {
	ins      []*inbound // in the order of lanes: retry records are produced in the order their commands must run
	lanes    []*lane
	outcomes map[*inbound]*outcome
	mu       sync.Mutex
}

// newBatch reads polled records into inbound commands: each is read once
// here (read: decoded, validated and mapped to its API call), because its
// session id decides its lane; then it groups them into lanes, by the
// parked set as the last commit left it. ctx bounds the registry lookups of
// decoding. Parked commands are first read back from their source records
// (parked.go).
func (p *Pipeline) newBatch(ctx context.Context, recs []*kgo.Record) *batch {
	b := &batch{outcomes: make(map[*inbound]*outcome, len(recs))}
	now := p.clock.Now()
	for _, r := range recs {
		in := newInbound(r, p.kinds[r.Topic], r.Topic == p.cfg.Topics.Retry)
		in.startConsume()
		if in.firstSeen.IsZero() {
			in.firstSeen = now
		}
		b.ins = append(b.ins, in)
	}
	p.resolveParked(ctx, b.ins)
	for _, in := range b.ins {
		if in.decodeErr == nil {
			p.read(ctx, in)
		}
		if out := p.kept.takeFor(in); out != nil {
			b.outcomes[in] = out // executed before an aborted write: not again
		}
	}
	b.lanes = groupLanes(b.ins, p.parked)
	b.ins = b.ins[:0]
	for _, l := range b.lanes {
		b.ins = append(b.ins, l.items...)
	}
	return b
}

// runBatch executes the batch's lanes concurrently (each lane in order)
// until all are done; commands still retrying when ctx ends are parked, and
// so are the commands queued behind them in their lane.
func (p *Pipeline) runBatch(ctx context.Context, b *batch) {
	var wg sync.WaitGroup
	for _, l := range b.lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.runLane(ctx, b, l)
		}()
	}
	wg.Wait()
}

// runLane runs a lane's commands one after another. At most MaxPerSession
// of them run: the rest are parked behind them, due at once, and come back
// through the retry topic, at most MaxPerSession a batch (held.go), so one
// session's flood holds the batch, and every other command in it, for at
// most MaxPerSession of its calls. The commands past l.ready, whose turn
// has not come, are parked behind too, and so are those after a command
// that is parked.
func (p *Pipeline) runLane(ctx context.Context, b *batch, l *lane) {
	var follow *retryState // set once a command of the lane is parked
	ran := 0
	for i, in := range l.items {
		b.mu.Lock()
		out := b.outcomes[in] // kept from an aborted write
		b.mu.Unlock()
		switch {
		case out != nil:
		case follow != nil:
			out = p.parkBehind(in, *follow)
		case i >= l.ready || ran == p.cfg.MaxPerSession:
			out = p.parkBehind(in, retryState{nextAttempt: p.clock.Now()})
		default:
			ran++
			out = p.process(ctx, in)
		}
		if out.park != nil && follow == nil {
			follow = &retryState{nextAttempt: out.park.retry.nextAttempt}
		}
		b.mu.Lock()
		b.outcomes[in] = out
		b.mu.Unlock()
	}
}

// parkBehind parks a command that has not run because an earlier command of
// its session is parked; it keeps its own attempt history.
func (p *Pipeline) parkBehind(in *inbound, head retryState) *outcome {
	r := in.retry
	r.nextAttempt = maxTime(r.nextAttempt, head.nextAttempt)
	return &outcome{in: in, sessionID: in.sessionID(), park: &parking{retry: r}}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// parkedChanges lists what the batch takes out of and puts into the retry
// topic, for the parked set once the transaction commits, in the order of
// its lanes. A retry record leaves the lane it was parked in (laneOf); a
// parked command joins the lane its retry record names (laneKey).
func (b *batch) parkedChanges() (consumed, parked []laneKeyPair) {
	for _, in := range b.ins {
		if in.fromRetry {
			consumed = append(consumed, laneKeyPair{laneOf(in), in.key})
		}
		if out := b.outcomes[in]; out != nil && out.park != nil {
			parked = append(parked, laneKeyPair{in.laneKey(), in.key})
		}
	}
	return consumed, parked
}

// earliestNotDue returns the earliest next-attempt time of retry records that
// were parked again only because they were not yet due (zero if none): the
// retry topic can pause until then instead of cycling them.
func (b *batch) earliestNotDue() time.Time {
	var t time.Time
	for _, out := range b.outcomes {
		if out.park != nil && out.park.notDue && (t.IsZero() || out.park.retry.nextAttempt.Before(t)) {
			t = out.park.retry.nextAttempt
		}
	}
	return t
}
