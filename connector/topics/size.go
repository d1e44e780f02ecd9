package topics

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/outbound"
)

// RecordBatchBytes returns an upper bound, within about a hundred bytes, of
// the size of a record batch holding only rec (outbound.RecordBatchBytes).
func RecordBatchBytes(rec *kgo.Record) int { return outbound.RecordBatchBytes(rec) }

// Fits reports whether rec, alone in a batch, fits what its topic accepts
// (rec.Topic's MaxMessageBytes). The connector's writers check records with
// an outbound.Sizer, which also counts the producer's batch cap. Fits
// assumes the producer caps batches with BatchMaxBytes; with franz-go's
// default cap, a topic's limit above 1,000,012 bytes is not reachable.
func (r Report) Fits(rec *kgo.Record) bool {
	return RecordBatchBytes(rec) <= r.MaxMessageBytes(rec.Topic)
}
