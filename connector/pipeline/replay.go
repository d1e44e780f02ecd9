package pipeline

import "bytes"

// Outcomes kept across an aborted transaction. When a batch's outcomes
// cannot be written (writes.go), its transaction aborts and its records are
// redelivered. Calling the API again for them would be safe (same
// idempotency keys) but wasteful, and during a long outage it would re-send
// every command each cycle. So the final outcomes of a batch aborted for a
// write failure are kept, by consumed position, and a redelivered record
// takes its kept outcome instead of being executed again: a command is sent
// once however long the topic stays unwritable. Outcomes are forgotten once
// written (committed), and the set is bounded.

// maxKeptOutcomes bounds the outcomes kept across aborts.
const maxKeptOutcomes = 100_000

// keptOutcomes maps a consumed record's position to its final outcome. It is
// used by the Run goroutine only (lanes read it through take, before they
// start, and only for the records of their own batch).
type keptOutcomes map[source]*outcome

// keep remembers the final (not parked) outcomes of an aborted batch.
func (k keptOutcomes) keep(b *batch) {
	for in, out := range b.outcomes {
		if out.park == nil && len(k) < maxKeptOutcomes {
			k[consumedAt(in)] = out
		}
	}
}

// forget drops the outcomes of a committed batch.
func (k keptOutcomes) forget(b *batch) {
	for _, in := range b.ins {
		delete(k, consumedAt(in))
	}
}

// takeFor returns the kept outcome of a redelivered record, rebound to it,
// or nil. The record must be the same one — same key, value size and
// timestamp — not another at the same position of a recreated topic.
func (k keptOutcomes) takeFor(in *inbound) *outcome {
	out, ok := k[consumedAt(in)]
	if !ok {
		return nil
	}
	was := out.in.rec
	if !bytes.Equal(was.Key, in.rec.Key) || len(was.Value) != len(in.rec.Value) || !was.Timestamp.Equal(in.rec.Timestamp) {
		delete(k, consumedAt(in))
		return nil
	}
	o := *out
	o.in = in
	return &o
}

// consumedAt is where a record was consumed (for a retry record: the retry
// topic, not its origin).
func consumedAt(in *inbound) source {
	return source{Topic: in.rec.Topic, Partition: in.rec.Partition, Offset: in.rec.Offset}
}
