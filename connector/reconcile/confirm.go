package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// Results of an automatic session/confirm, the label values of
// paysession_reconcile_auto_confirms_total. They count what the service
// did, read from its answer, not that a call was made.
const (
	// confirmConfirmed: the service answered with the session no longer
	// waiting for confirmation of the operations confirmed.
	confirmConfirmed = "confirmed"
	// confirmAccepted: the service answered ok without a session (the
	// spec marks it optional); the state is learned by session/status.
	confirmAccepted = "accepted"
	// confirmReplayed: the answer is older than the state the confirm was
	// sent for (the service returned the stored answer of an earlier
	// request under the same key), or it still waits for the same
	// operations: the service did nothing.
	confirmReplayed = "replayed"
	// confirmRejected: a final API error (invalid_request when nothing
	// waits any more, an idempotency key conflict, ...).
	confirmRejected = "rejected"
	// confirmError: no final answer (transport, timeout, 5xx, 429); the
	// confirm is retried later under the same key.
	confirmError = "error"
)

// confirm applies the auto-confirm policy to one session. The state that
// made the task due came from the sessions topic and may be old, replayed
// or another replica's, so it decides nothing: session/status is called
// first, and session/confirm is sent only when that fresh state still
// waits for confirmation (next_action confirm) of pending operations the
// policy allows, under a key naming the session and those operations
// (confirmKey). Each operation is thus confirmed once, by whichever
// replica or restart gets there, and a later operation of the same session
// gets its own key. When nothing is to be confirmed the fresh state is
// published like a poll's.
func (r *Reconciler) confirm(ctx context.Context, t task) (bool, error) {
	s, err := r.status(ctx, t)
	if err != nil {
		return false, fmt.Errorf("auto-confirm: %w", err)
	}
	fresh := sessionstate.FromAPI(s, string(codec.SourcePoll), r.cfg.Now(), r.cfg.APIVersion)
	targets := confirmTargets(&fresh.Session)
	key := confirmKey(t.id, targets)
	if !r.cfg.Confirm.AutoConfirms(&fresh.Session) || r.pending.answered(t.id, key) {
		return r.publishPolled(ctx, t, s)
	}
	r.metrics.polls.WithLabelValues("before_confirm").Inc()
	log := r.log.With(slog.String("session_id", t.id), slog.Any("operation_ids", targets), slog.String("idempotency_key", key))
	resp, cerr := r.cfg.API.Confirm(ctx, t.id, append(t.route(), payapi.WithIdempotencyKey(key))...)
	var answer *codec.SessionState
	if cerr == nil && resp != nil {
		answer = sessionstate.FromAPI(resp, string(codec.SourceAPIResponse), r.cfg.Now(), r.cfg.APIVersion)
		answer.IdempotencyKey = &key
	}
	result := confirmOutcome(&fresh.Session, targets, answer, cerr)
	r.metrics.confirms.WithLabelValues(result).Inc()
	noteConfirm(ctx, result)
	if result != confirmError {
		r.pending.answer(t.id, key) // the service decided: never sent again for these operations
	}
	switch result {
	case confirmConfirmed:
		log.InfoContext(ctx, "operations confirmed by policy")
		return r.publish(ctx, t, answer, false, nil)
	case confirmAccepted:
		log.InfoContext(ctx, "operations confirmed by policy; answer without session, reading its state")
		if s, err := r.status(ctx, t); err == nil {
			return r.publishPolled(ctx, t, s)
		}
	case confirmReplayed:
		log.WarnContext(ctx, "auto-confirm answered by an earlier request under the same key: nothing confirmed")
	default:
		log.WarnContext(ctx, "auto-confirm failed", slog.String("result", result), slog.Any("error", cerr))
	}
	published, perr := r.publish(ctx, t, fresh, false, nil) // what the status showed is news all the same
	if cerr != nil {
		cerr = fmt.Errorf("auto-confirm: %w", cerr)
	}
	return published, errors.Join(cerr, perr)
}

// confirmOutcome tells what the service did with a session/confirm sent
// for targets, the pending operations of fresh (the session/status read
// just before), from its answer (nil when it failed or had no session).
func confirmOutcome(fresh *codec.Session, targets []string, answer *codec.SessionState, err error) string {
	if err != nil {
		var perr *payapi.Error
		if errors.As(err, &perr) && !perr.Retryable {
			return confirmRejected
		}
		return confirmError
	}
	if answer == nil {
		return confirmAccepted
	}
	got := &answer.Session
	if fresh.UpdatedAt != nil && got.UpdatedAt != nil && got.UpdatedAt.Before(*fresh.UpdatedAt) {
		return confirmReplayed
	}
	if WaitsForConfirm(got) && slices.Equal(confirmTargets(got), targets) {
		return confirmReplayed
	}
	return confirmConfirmed
}

// confirmTargets returns the sorted ids of the operations a session/confirm
// of s would accept: those pending while the session waits for
// confirmation ("operation pending, session next_action confirm" in the
// spec's state table). Nil when s does not wait for confirmation.
func confirmTargets(s *codec.Session) []string {
	if !WaitsForConfirm(s) {
		return nil
	}
	var ids []string
	for _, op := range s.Operations {
		if strings.EqualFold(op.Status, "pending") {
			ids = append(ids, op.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// confirmKey is the idempotency key of the automatic confirmation of the
// operations ops of a session: "autoconfirm-" and 40 hex digits of the
// SHA-256 of the session id and the operation ids, 52 printable ASCII
// characters whatever the ids' lengths (the spec allows 4 to 64). It is
// deterministic, so every replica and restart sends the same key for the
// same operations and the service executes the confirmation once; a
// later operation of the session gets another key. The ids are separated
// by a zero byte, which no id contains, so different lists never share
// a key.
func confirmKey(sessionID string, ops []string) string {
	h := sha256.New()
	h.Write([]byte(sessionID))
	for _, id := range ops {
		h.Write([]byte{0})
		h.Write([]byte(id))
	}
	return "autoconfirm-" + hex.EncodeToString(h.Sum(nil)[:20])
}
