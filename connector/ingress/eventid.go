package ingress

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"time"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

// EventID is the event id of a webhook body: eventID of what it means
// (its type and session, as payapi.ParseWebhook reads them). A body that
// does not parse, which the ingress refuses, gets the SHA-256 of its bytes
// with any card data masked.
func EventID(body []byte) string {
	wh, err := payapi.ParseWebhook(body)
	if err != nil {
		sum := sha256.Sum256([]byte(sensitive.MaskText(string(body))))
		return hex.EncodeToString(sum[:])
	}
	return eventID(wh.Type, &wh.Session)
}

// eventID is a webhook's event id: the SHA-256, in hex, of what the event
// means — its type, the session id, status, next_action and updated_at,
// and each operation's id and status with its refunds' ids, statuses and
// chargeback flags — and not of its bytes. A webhook serialized anew
// (members reordered, spacing, fields added over time, another API
// version's names) is the same event, so it has the same id, and a
// redelivery or replay of it is recognised as one. Two different events of
// a session differ in one of those: the service stamps updated_at at each
// change and sends one webhook of a type per change.
//
// Each value is masked (sensitive.MaskText) before it is hashed, so the
// id, a header on the connector's topics, is no function of a card number
// whatever a field holds.
func eventID(typ string, s *payapi.Session) string {
	h := sha256.New()
	put := func(v string) { putString(h, sensitive.MaskText(v)) }
	put("paysession-webhook-event/1")
	put(typ)
	put(s.ID)
	put(s.Status)
	put(s.NextAction)
	put(s.UpdatedAt.UTC().Format(time.RFC3339Nano))
	for _, ops := range []struct {
		kind string
		list []payapi.Operation
	}{{"payout", s.Payouts}, {"payment", s.Payments}} {
		for _, op := range sortedByID(ops.list, func(o payapi.Operation) string { return o.ID }) {
			put(ops.kind)
			put(op.ID)
			put(op.Status)
			for _, r := range sortedByID(op.Refunds, func(r payapi.Refund) string { return r.ID }) {
				put("refund")
				put(r.ID)
				put(r.Status)
				put(map[bool]string{true: "chargeback", false: "refund"}[r.IsChargeback])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// putString writes v length-prefixed, so that no two sequences of values
// hash alike.
func putString(h hash.Hash, v string) {
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(v)))])
	h.Write([]byte(v))
}

// sortedByID returns a copy of list in the order of its ids: the order of
// a payload's array is no part of what the event means.
func sortedByID[T any](list []T, id func(T) string) []T {
	return slices.SortedStableFunc(slices.Values(list), func(a, b T) int { return cmp.Compare(id(a), id(b)) })
}
