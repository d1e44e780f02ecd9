package codec

import "strconv"

// Position names a record by where it was written: the command record an
// outcome answers (a result's source_topic, source_partition and
// source_offset; a dead letter's original_*).
type Position struct {
	Topic     string
	Partition int32
	Offset    int64
}

// invalidKey starts the outcome key of a record whose idempotency key is
// invalid.
const invalidKey = "invalid"

// OutcomeKeyAt is the key a command's outcome records carry (result key and
// idempotency_key, dead-letter key and original_key): the idempotency key
// when it is valid (ValidateIdempotencyKey), else
// "invalid-<topic>-<partition>-<offset>" of the command record, at.
//
// An invalid key is never published as it is — it may be a card number, or
// megabytes long — nor as any function of it: whatever can be computed from
// the key offline can be inverted offline when the key is a card number.
// (It used to be a truncated SHA-256; with the bin and last4 of a 16-digit
// card, 10^5 candidates remain, and the card came back in about a second.)
// The record's position is chosen over a keyed hash (HMAC): it needs no
// secret to manage, rotate or lose; it is unique per record, as an outcome
// key must be; and results, dead letters and redrive already refer to the
// source record by it. A producer finds the result of its record from the
// partition and offset its produce returned.
func OutcomeKeyAt(key string, at Position) string {
	if ValidateIdempotencyKey(key) == nil {
		return key
	}
	return invalidKey + "-" + at.Topic + "-" + strconv.Itoa(int(at.Partition)) + "-" + strconv.FormatInt(at.Offset, 10)
}
