package pipeline

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/kafka"
)

// An operator's pause (Config.Paused) stops fetching: the command topics
// of the paused kinds, and the retry topic while any kind is paused (it
// holds parked commands of every kind, and a parked command's later
// commands of the same session wait behind it, so the session order
// holds). Nothing new of a paused kind is read, so no result is invented:
// its records stay in their topics and are read on resume from where the
// group's committed offsets (or the held records' rewind) left them.
//
// The pause is obeyed between two transactions, on the Run goroutine
// (pollHeld): records held but not started (ahead.hold) of a paused topic are
// given back to the client (rewound), and the batches already started —
// the one ending and at most one polled ahead of it — finish their calls
// and commit. No batch is polled ahead while the pause state moved
// (mayTakeAhead), so from the moment a replica learns a pause, at most
// those two batches call the API, each bounded by BatchDeadline.

// fetchPauses is what a session's fetching leaves paused, beside what
// backpressure pauses for a while (backpressure.go).
type fetchPauses struct {
	// operator are the topics left paused for an operator's pause.
	operator map[string]bool
	// retryUntil is when the retry topic, paused until its first parked
	// command is due, is fetched again (zero: not paused so).
	retryUntil time.Time
}

// pausedTopics returns the topics an operator's pause stops fetching, and
// whether the pause state is known.
func (p *Pipeline) pausedTopics() (map[string]bool, bool) {
	if p.cfg.Paused == nil {
		return nil, true
	}
	kinds, known := p.cfg.Paused()
	if !known {
		return nil, false
	}
	out := map[string]bool{}
	for t, k := range p.kinds {
		if slices.Contains(kinds, k) {
			out[t] = true
		}
	}
	if len(out) > 0 {
		out[p.cfg.Topics.Retry] = true
	}
	return out, true
}

// pauseMoved reports whether the operator's pause differs from what the
// session's fetching obeys.
func (p *Pipeline) pauseMoved() bool {
	want, known := p.pausedTopics()
	return !known || !maps.Equal(want, p.paused.operator)
}

// obeyPause makes the session's fetching obey the operator's pause: it
// pauses the newly paused topics, gives back the held records of paused
// topics, and resumes the topics no longer paused (the retry topic only
// when it is due, see runSession). It returns false while the pause state
// is not known: then nothing may be taken.
func (p *Pipeline) obeyPause(s *kafka.TxnSession) bool {
	want, known := p.pausedTopics()
	if !known {
		return false
	}
	if maps.Equal(want, p.paused.operator) {
		return true
	}
	cl := s.Client()
	var pause, resume []string
	for t := range want {
		if !p.paused.operator[t] {
			pause = append(pause, t)
		}
	}
	for t := range p.paused.operator {
		if !want[t] {
			resume = append(resume, t)
		}
	}
	cl.PauseFetchTopics(pause...)
	given := p.ahead.release(cl, func(r *kgo.Record) bool { return want[r.Topic] })
	p.paused.operator = want
	p.resumeFetch(cl, resume...)
	slices.Sort(pause)
	slices.Sort(resume)
	p.log.Info("operator pause obeyed", slog.Any("paused_topics", pause), slog.Any("resumed_topics", resume),
		slog.Int("held_given_back", given))
	return true
}

// resumeFetch resumes fetching the topics that no operator's pause holds
// and, for the retry topic, that are not waiting for a parked command to
// be due.
func (p *Pipeline) resumeFetch(cl *kgo.Client, topics ...string) {
	var rs []string
	for _, t := range topics {
		if p.paused.operator[t] || t == p.cfg.Topics.Retry && !p.paused.retryUntil.IsZero() {
			continue
		}
		rs = append(rs, t)
	}
	if len(rs) > 0 {
		cl.ResumeFetchTopics(rs...)
	}
}

// awaitPauseKnown waits, up to a second, for the pause state to be known.
func (p *Pipeline) awaitPauseKnown(ctx context.Context) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Second)
	for {
		if _, known := p.pausedTopics(); known {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline:
			return
		case <-tick.C:
		}
	}
}
