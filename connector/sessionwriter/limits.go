package sessionwriter

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/outbound"
)

// Following the topics' limits: as the pipeline does, and for the same
// reason (franz-go fixes a partition's batch cap when it first produces to
// it, and purging the partition resets sequence numbers that a
// transactional producer before KIP-890 part 2 must continue: see
// connector/pipeline's limits.go), the writer pins the limits when it
// builds its Kafka session, checks each record against the smaller of the
// pinned and the live limit, and builds a new session between two
// transactions once the limit of the sessions or webhook-events topic
// changed. A new session takes its partitions over again (reads them from
// the horizon); a limit changes rarely.

// errLimitsChanged ends a session whose batch caps no longer match the
// topics' limits; Run builds the next one at once.
var errLimitsChanged = errors.New("a topic's max.message.bytes changed; rebuilding the kafka session to follow it")

// pinLimits pins the limits for a session's client about to be built: it
// sets the Sizer the derived records are checked with and returns the
// client's batch caps.
func (w *Writer) pinLimits() kgo.Opt {
	w.caps = outbound.Pin(w.cfg.Sizer.Limits())
	w.sizer = w.cfg.Sizer.Pinned(w.caps)
	return kgo.ProducerBatchMaxBytesFn(outbound.BatchCaps(w.caps))
}

// limitsMoved reports whether the limit of the sessions or webhook-events
// topic changed since the running session's client was built.
func (w *Writer) limitsMoved() bool {
	return outbound.Changed(w.caps, outbound.Pin(w.cfg.Sizer.Limits()), w.cfg.SessionsTopic, w.cfg.EventsTopic)
}
