package pipeline

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

// This file maps outcomes (the API model and the pipeline's decisions) to
// the Kafka model: command-result, session-state and retry records (dead
// letters: deadletter.go). resultOf and retryRecord are pure.

// resultOf builds the command-result of a finished command. Its error text
// may come from the API (which may echo the request) or quote the command:
// the description is scrubbed by the one matcher of card data, the code,
// field and rule are kept only in their shape (sensitive.Token,
// sensitive.FieldPath), else "unparseable".
func resultOf(out *outcome, now time.Time, apiVersion int) *codec.CommandResult {
	in := out.in
	r := &codec.CommandResult{
		IdempotencyKey:   in.outcomeKey(),
		Kind:             codec.CommandKind(in.kind),
		SourceTopic:      in.src.Topic,
		SourcePartition:  in.src.Partition,
		SourceOffset:     in.src.Offset,
		Status:           out.verdict.Status,
		ErrorCode:        optional(sensitive.Token(out.verdict.Code)),
		ErrorDescription: optional(publicDescription(out.verdict.Description)),
		ErrorField:       optional(sensitive.FieldPath(out.verdict.Field)),
		ErrorRule:        optional(sensitive.Token(out.verdict.Rule)),
		SessionID:        optional(out.sessionID),
		Attempts:         int32(out.attempts),
		FirstAttemptAt:   optionalTime(out.first),
		LastAttemptAt:    optionalTime(out.last),
		LatencyMicros:    out.latency.Microseconds(),
		RecordTimestamp:  optionalTime(in.recordTime),
		CompletedAt:      now.UTC(),
	}
	if apiVersion > 0 {
		v := int32(apiVersion)
		r.APIVersion = &v
	}
	if t := out.answer.Token; t != nil {
		r.RecurringToken = sessionstate.RecurringToken(t)
	}
	return r
}

// retryRecord builds the record that parks a command in the retry topic. It
// is keyed by the lane (session id, else idempotency key) so that a session's
// parked commands share a partition and come back in order; the idempotency
// key and the command's origin travel in headers. It has no value and none
// of the producer's headers: the command is read back from its source when
// the record is polled (parked.go), so the retry topic holds no card data.
func retryRecord(out *outcome, topic string) *kgo.Record {
	in, r := out.in, out.park.retry
	hs := append([]kgo.RecordHeader{},
		header.New(header.Key, in.key),
		header.New(header.Kind, in.kind),
		header.New(header.SourceTopic, in.src.Topic),
		header.NewInt(header.SourcePartition, int64(in.src.Partition)),
		header.NewInt(header.SourceOffset, in.src.Offset),
		header.NewInt(header.RecordTime, in.recordTime.UnixMilli()),
		header.NewInt(header.Attempts, int64(r.attempts)),
		header.NewTime(header.NextAttempt, r.nextAttempt),
		header.New(header.Sent, strconv.FormatBool(r.sent)),
		header.New(header.Lane, in.laneKey()),
	)
	if !r.firstAttempt.IsZero() {
		hs = append(hs, header.NewTime(header.FirstAttempt, r.firstAttempt))
	}
	if !in.firstSeen.IsZero() {
		hs = append(hs, header.NewTime(header.FirstSeen, in.firstSeen))
	}
	if r.decodeFailures > 0 {
		hs = append(hs, header.NewInt(header.DecodeFailures, int64(r.decodeFailures)))
	}
	key := in.key
	if id := in.sessionID(); id != "" {
		key = id
	}
	return &kgo.Record{Topic: topic, Key: []byte(key), Headers: hs}
}

// sessionStates lists the session states an outcome learned, with their
// source: the response (api_response) and a settling status query (poll).
func sessionStates(out *outcome) []learned {
	var ls []learned
	if s := out.answer.Session; s != nil && s.ID != "" {
		ls = append(ls, learned{s, codec.SourceAPIResponse})
	}
	if out.polled != nil && out.polled.ID != "" {
		ls = append(ls, learned{out.polled, codec.SourcePoll})
	}
	return ls
}

type learned struct {
	session *payapi.Session
	source  codec.SessionSource
}

// maxDescription bounds a result's error description: results stay small
// whatever the command (a decode error may quote a long value).
const maxDescription = 1024

// publicDescription is an error description as a result publishes it:
// scrubbed of card data and long digit groups (codec.Scrub), cut to
// maxDescription, and scrubbed again, since a cut can leave a group that
// reads differently.
func publicDescription(s string) string {
	return codec.Scrub(truncate(codec.Scrub(s), maxDescription))
}

// truncate cuts s to at most n bytes on a UTF-8 boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
