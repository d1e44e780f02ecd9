package codec

import (
	"crypto/sha256"
	"encoding/hex"
)

// OutcomeKey is the key a command's outcome records carry (result key and
// idempotency_key, dead-letter key and original_key): the idempotency key
// when it is valid (ValidateIdempotencyKey). An invalid key is never
// published as it is — it may be a card number, or megabytes long — but as
// "sha256:" and the first 12 bytes of its SHA-256 in hex, which a producer
// can compute to find the result of its record.
func OutcomeKey(key string) string {
	if ValidateIdempotencyKey(key) == nil {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:12])
}
