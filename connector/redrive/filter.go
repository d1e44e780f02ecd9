package redrive

import (
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// Filter selects dead letters. Its zero value selects all; each set field
// narrows the selection.
type Filter struct {
	// SourceTopic is the command topic the letter came from.
	SourceTopic string
	// Key is the command's idempotency key (the letter's record key).
	Key string
	// ErrorCodes are the error codes (header.ErrorCode) to select.
	ErrorCodes []string
	// Since and Until bound the time the letter was written (its record
	// timestamp): Since <= t < Until.
	Since, Until time.Time
}

// Matches reports whether the dead letter r, decoded as dl, is selected.
func (f Filter) Matches(r *kgo.Record, dl *codec.DeadLetter) bool {
	code, _ := header.Get(r, header.ErrorCode)
	switch {
	case f.SourceTopic != "" && dl.OriginalTopic != f.SourceTopic,
		f.Key != "" && string(r.Key) != f.Key,
		len(f.ErrorCodes) > 0 && !slices.Contains(f.ErrorCodes, code),
		!f.Since.IsZero() && r.Timestamp.Before(f.Since),
		!f.Until.IsZero() && !r.Timestamp.Before(f.Until):
		return false
	}
	return true
}
