package pipeline

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/outbound"
)

// Following the topics' limits. franz-go sizes a partition's batches once,
// when it creates the partition's buffer (recBuf.maxRecordBatchBytes, from
// kgo.ProducerBatchMaxBytesFn), and keeps that cap for the client's life: a
// limit raised on the cluster is not used, and a lowered one lets franz-go
// build batches the topic refuses, until the buffer is made again.
// Client.PurgeTopicsFromProducing makes it again, but also forgets the
// partition's sequence numbers: before KIP-890 part 2 (transaction.version
// 2) a transactional producer keeps its epoch across transactions, so its
// next produce to a purged partition starts at sequence 0 under the same
// epoch, which the broker refuses (OUT_OF_ORDER_SEQUENCE_NUMBER), failing
// the transaction and bumping the epoch. A new client has fresh buffers and
// a fresh epoch (InitProducerID) on every cluster, so the pipeline pins the
// limits when it builds its Kafka session and, once a limit of a topic it
// writes changed (topics.Live reads them every minute), ends the session
// between two transactions — nothing polled ahead, nothing in flight — and
// builds a new one: a rejoin of the group per change of a limit, which is
// rare. Meanwhile a record is checked against the smaller of the pinned and
// the live limit (outbound.Sizer.Pinned), so a lowered limit holds at once.

// errLimitsChanged ends a session whose batch caps no longer match the
// topics' limits; Run builds the next one at once.
var errLimitsChanged = errors.New("a topic's max.message.bytes changed; rebuilding the kafka session to follow it")

// pinned are the limits a session's client was built with.
type pinned struct {
	caps  outbound.Limits // the client's batch caps
	sizer *outbound.Sizer // Config.Sizer pinned to caps: records are checked with it
}

// written lists the topics the pipeline's transactional producer writes
// (the attempt marks have their own client and stay a few bytes).
func (p *Pipeline) written() []string {
	return []string{p.cfg.Topics.Results, p.cfg.Topics.SessionUpdates, p.cfg.Topics.DeadLetter, p.cfg.Topics.Retry}
}

// pinLimits pins the limits for a session's client about to be built: it
// sets the Sizer its records are checked with and returns the client's
// batch caps. It runs on the Run goroutine (and in New).
func (p *Pipeline) pinLimits() kgo.Opt {
	caps := outbound.Pin(p.cfg.Sizer.Limits())
	p.pinned = pinned{caps: caps, sizer: p.cfg.Sizer.Pinned(caps)}
	return kgo.ProducerBatchMaxBytesFn(outbound.BatchCaps(caps))
}

// limitsMoved reports whether the limit of a topic the pipeline writes
// changed since the running session's client was built.
func (p *Pipeline) limitsMoved() bool {
	return outbound.Changed(p.pinned.caps, outbound.Pin(p.cfg.Sizer.Limits()), p.written()...)
}
