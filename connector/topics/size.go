package topics

import "github.com/twmb/franz-go/pkg/kgo"

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

// Fits reports whether rec, alone in a batch, fits what its topic accepts
// (rec.Topic's MaxMessageBytes). A dead letter that does not fit must be
// written without its value (issue 13, item 1). Fits assumes the producer
// caps batches with BatchMaxBytes; with franz-go's default cap, a topic's
// limit above 1,000,012 bytes is not reachable.
func (r Report) Fits(rec *kgo.Record) bool {
	return RecordBatchBytes(rec) <= r.MaxMessageBytes(rec.Topic)
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
