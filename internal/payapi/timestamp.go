package payapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"
)

// Timestamps read from responses and webhooks.
//
// The spec says timestamps are ISO 8601, session and operation timestamps are
// UTC with microseconds, and other timestamps may carry an offset. Every
// timestamp is read in the ISO 8601 extended forms
//
//	YYYY-MM-DDThh:mm:ss[.fraction|,fraction][zone]
//
// with a fraction of any length (kept to the nanosecond) and a zone of Z,
// ±hh:mm, ±hhmm, ±hh or none. A value without a zone is read as UTC: the
// spec defines session and operation times as UTC, and for the other times
// an offset is the exception it announces ("may carry"), so its absence is
// read as the service's own zone, UTC.
//
// The two kinds differ only when a value cannot be read:
//   - primary (session created_at/updated_at, operation created_at/
//     finished_at): the response is malformed. updated_at orders the states
//     of a session and the operation times are facts downstream records
//     carry, so they are never guessed or dropped.
//   - secondary (refund and recurring-token times, chargebacks included):
//     the field is left unset (zero or nil) and its JSON path is reported
//     (logged at Debug by the client, listed in Webhook.DroppedFields), so one
//     odd value does not make a whole status response or webhook unreadable.
//     A secondary time that is not a JSON string is dropped the same way.

// timeLayouts are tried in order; each accepts a fraction after the seconds
// (Go reads '.' or ',' and any number of digits there).
var timeLayouts = []string{
	time.RFC3339,               // Z or ±hh:mm
	"2006-01-02T15:04:05Z0700", // ±hhmm
	"2006-01-02T15:04:05Z07",   // ±hh
	"2006-01-02T15:04:05",      // no zone: UTC
}

var errNotISO8601 = errors.New("not an ISO 8601 timestamp")

// parseTime reads a timestamp in one of the accepted forms; empty means the
// zero time. The error never quotes the value (it may be anything, even a
// card number).
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if !isoDateTime(s) {
		return time.Time{}, errNotISO8601
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errNotISO8601
}

// isoDateTime checks the fixed-width YYYY-MM-DDThh:mm:ss prefix, which Go's
// layouts other than RFC 3339 read more loosely (a one-digit hour).
func isoDateTime(s string) bool {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(shape) {
		return false
	}
	for i := range len(shape) {
		if shape[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != shape[i] {
			return false
		}
	}
	return true
}

// parseOptTime reads an optional primary timestamp; empty means nil.
func parseOptTime(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := parseTime(s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// secondaryTime reads an optional secondary timestamp of any JSON type. It
// returns nil for a missing, null or empty value, and ok false when the value
// is present but unreadable (the caller drops the field).
func secondaryTime(raw json.RawMessage) (t *time.Time, ok bool) {
	if absent(raw) {
		return nil, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	if s == "" {
		return nil, true
	}
	v, err := parseTime(s)
	if err != nil {
		return nil, false
	}
	return &v, true
}

// droppedTimes collects the JSON paths of secondary timestamps left unset.
type droppedTimes []string

// read sets *dst from raw, recording path when the value is unreadable.
func (d *droppedTimes) read(dst **time.Time, raw json.RawMessage, path string) {
	t, ok := secondaryTime(raw)
	if !ok {
		*d = append(*d, path)
	}
	*dst = t
}

// readValue is read for a non-pointer field: unset is the zero time.
func (d *droppedTimes) readValue(dst *time.Time, raw json.RawMessage, path string) {
	var t *time.Time
	d.read(&t, raw, path)
	if t != nil {
		*dst = *t
	}
}

// under records the paths of an inner object below prefix.
func (d *droppedTimes) under(prefix string, inner droppedTimes) {
	for _, p := range inner {
		*d = append(*d, prefix+p)
	}
}

// logDropped writes one Debug line per dropped timestamp: the endpoint and
// the field's path, never its value.
func (c *Client) logDropped(ctx context.Context, ep endpoint, dropped droppedTimes) {
	for _, f := range dropped {
		c.log.LogAttrs(ctx, slog.LevelDebug, "payapi timestamp dropped",
			slog.String("endpoint", ep.path), slog.String("field", f),
			slog.String("reason", "not an ISO 8601 timestamp"))
	}
}
