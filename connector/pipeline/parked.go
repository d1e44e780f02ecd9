package pipeline

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/kafka"
)

// The retry topic holds no command. A parked command's retry record names
// its source record (topic, partition, offset; the idempotency key and the
// attempt history in headers) and has no value, so no card number or
// security code is copied out of the command topics the upstream wrote.
// When the retry record is polled, the command is read back from its
// source (resolveParked), as the redrive reads dead letters' originals;
// the producer's headers come back with it. A source record that is gone
// by then (retention, or a topic deleted) ends the command with a final
// result (sourceGone). Retry records written before this change carry the
// command as their value, and are read as they are.

// readBackTimeout bounds reading a batch's parked commands back.
const readBackTimeout = 10 * time.Second

// sourceGoneError says a parked command's source record can no longer be
// read back.
type sourceGoneError struct {
	pos kafka.Position
	err error
}

func (e *sourceGoneError) Error() string {
	return fmt.Sprintf("the parked command's source record %s cannot be read back: %v", e.pos, e.err)
}

func (e *sourceGoneError) Unwrap() error { return e.err }

// refersToSource reports whether in is a retry record without its command.
func (in *inbound) refersToSource() bool { return in.fromRetry && in.rec.Value == nil }

// resolveParked reads back the commands of ins that are retry records
// referring to their source, with one reader for the batch. Each such
// inbound gets the source's value and headers (beside the retry record's
// own), or a decode error: sourceGoneError when the record is gone, a
// transientError when the cluster did not answer (parked again, as a
// registry outage is).
func (p *Pipeline) resolveParked(ctx context.Context, ins []*inbound) {
	var want []kafka.Position
	for _, in := range ins {
		if in.refersToSource() {
			want = append(want, in.srcPosition())
		}
	}
	if len(want) == 0 {
		return
	}
	found, gone, err := kafka.ReadAt(ctx, p.cfg.Kafka, readBackTimeout, want)
	for _, in := range ins {
		if !in.refersToSource() {
			continue
		}
		pos := in.srcPosition()
		src := found[pos]
		switch {
		case err != nil:
			in.decodeErr = &transientError{Err: fmt.Errorf("read the parked command back from %s: %w", pos, err)}
		case src == nil:
			in.decodeErr = &sourceGoneError{pos: pos, err: gone[pos]}
		case string(src.Key) != in.key:
			in.decodeErr = &sourceGoneError{pos: pos, err: fmt.Errorf("%w: the record at that offset has another key", kafka.ErrGone)}
		default:
			in.rec = withSource(in.rec, src)
		}
	}
}

func (in *inbound) srcPosition() kafka.Position {
	return kafka.Position{Topic: in.src.Topic, Partition: in.src.Partition, Offset: in.src.Offset}
}

// withSource returns the retry record r carrying its source's command, the
// producer's headers and the redrive's (header.Carried).
func withSource(r, src *kgo.Record) *kgo.Record {
	merged := *r
	merged.Value = src.Value
	merged.Headers = append(append([]kgo.RecordHeader{}, r.Headers...), header.Carried(src)...)
	return &merged
}

// sourceGone ends a parked command whose source record is gone: it cannot
// be sent any more. It is "expired, not sent" only when no attempt can
// have started (as for a command past the key-lifetime margin); otherwise
// indeterminate, and when its lane names the session, one status query
// publishes the session's actual state beside it.
func (p *Pipeline) sourceGone(ctx context.Context, in *inbound, start time.Time, gone *sourceGoneError) *outcome {
	desc := gone.Error()
	if !in.neverAttempted || in.retry.sent || in.retry.attempts > 0 {
		out := p.end(&outcome{in: in, attempts: in.retry.attempts, first: in.retry.firstAttempt}, start, nil, false, false)
		out.verdict = verdict{Status: codec.StatusIndeterminate, Code: "source_unavailable",
			Description: desc + "; it may have been sent before it was parked"}
		if id := in.laneSessionID(); id != "" {
			out.sessionID = id
			out.polled = p.settle(in.traced(ctx), id)
		}
		return out
	}
	out := p.end(&outcome{in: in}, start, nil, false, false)
	out.verdict = verdict{Status: codec.StatusExpired, Code: "source_unavailable", Description: desc + "; not sent"}
	return out
}

// laneSessionID returns the session a retry record's lane names (laneOf:
// the lane header "s:<session id>" of a command that could not be read
// back), or "".
func (in *inbound) laneSessionID() string {
	if id, ok := strings.CutPrefix(laneOf(in), "s:"); ok {
		return id
	}
	return ""
}
