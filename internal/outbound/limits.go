package outbound

import "github.com/twmb/franz-go/pkg/kgo"

// DefaultMaxMessageBytes is the size bound assumed for a topic whose
// max.message.bytes is unknown: franz-go's default batch cap, slightly below
// Kafka's default max.message.bytes (1048588), so it holds against a broker
// left at its defaults.
const DefaultMaxMessageBytes = 1000012

// Limits tells the largest record batch each topic accepts: its effective
// max.message.bytes. connector/topics' Report (read once) and Live (read
// again now and then) implement it.
type Limits interface {
	MaxMessageBytes(topic string) int
}

// Moving is implemented by Limits that change while the connector runs
// (topics.Live): Now returns the limits as last read, which do not change.
type Moving interface {
	Limits
	Now() Limits
}

// Pin returns what l holds now: l itself when it does not move, else a
// copy that no refresh changes. A producer's batch caps are pinned when
// its client is built (franz-go reads them once per partition), and a
// record is checked against the smaller of the pinned and the live limit
// (Sizer).
func Pin(l Limits) Limits {
	if m, ok := l.(Moving); ok {
		return m.Now()
	}
	return l
}

// Changed reports whether the limit of one of topics differs between a
// and b: a client whose caps were pinned from a must be rebuilt to follow b.
func Changed(a, b Limits, topics ...string) bool {
	for _, t := range topics {
		if maxBytes(a, t) != maxBytes(b, t) {
			return true
		}
	}
	return false
}

// BatchCaps returns l as the per-topic batch cap of a franz-go producer, for
// kgo.ProducerBatchMaxBytesFn: so that the client accepts the records each
// topic accepts (its own default of 1,000,012 bytes would refuse a 2 MB
// record to a 4 MiB topic, and build a batch the topic refuses from small
// records). The value is clamped to the range franz-go allows.
func BatchCaps(l Limits) func(topic string) int32 {
	return func(topic string) int32 {
		const lowest, highest = 512, 1 << 30
		return int32(min(max(maxBytes(l, topic), lowest), highest))
	}
}

// maxBytes is l's limit of topic, DefaultMaxMessageBytes when l is nil or
// does not know the topic.
func maxBytes(l Limits, topic string) int {
	if l == nil {
		return DefaultMaxMessageBytes
	}
	if n := l.MaxMessageBytes(topic); n > 0 {
		return n
	}
	return DefaultMaxMessageBytes
}

// batchOverhead bounds what a record batch of one record adds to the record
// itself: the v2 batch header as franz-go counts it (65 bytes), the record's
// length, attributes, and timestamp and offset deltas at their widest varint
// sizes (5+1+10+5), and slack for the flexible produce request's encoding.
const batchOverhead = 65 + 5 + 1 + 10 + 5 + 64

// RecordBatchBytes returns an upper bound, within about a hundred bytes, of
// the size of a record batch holding only rec, uncompressed: what both
// franz-go's batch cap and the broker's max.message.bytes are compared with
// (compression only shrinks what franz-go sends: it sends a batch
// uncompressed when compressing would grow it).
func RecordBatchBytes(rec *kgo.Record) int {
	n := batchOverhead + sizedBytes(rec.Key) + sizedBytes(rec.Value) + varintLen(len(rec.Headers))
	for _, h := range rec.Headers {
		n += sizedBytes([]byte(h.Key)) + sizedBytes(h.Value)
	}
	return n
}

// sizedBytes is the encoded size of a length-prefixed byte string.
func sizedBytes(b []byte) int { return varintLen(len(b)) + len(b) }

// varintLen is the size of n as a zig-zag varint, the encoding of lengths in
// a v2 record.
func varintLen(n int) int {
	u := uint64(n) << 1 // n >= 0: zig-zag doubles it
	size := 1
	for u >= 0x80 {
		u >>= 7
		size++
	}
	return size
}
