package faults_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

// TestDuplicateCommands is scenario 4: the same command record produced
// many times at once (same key, same body), and one key produced at once
// with two different bodies. The contract, per consumed record: exactly one
// result. The sandbox executes each key once; a record with the body that
// executed is accepted with the key's one session id (replayed answers);
// a record with the other body gets rejected with
// idempotency_key_params_mismatch (a final error, never retried). Which
// body of a mixed key wins is a race; the oracle learns it from the ledger.
func TestDuplicateCommands(t *testing.T) {
	t.Parallel()
	same := size("FAULTS_DUP_KEYS", 10, 200)   // keys whose copies are identical
	mixed := size("FAULTS_DUP_MIXED", 4, 50)   // keys whose copies carry two amounts
	copies := size("FAULTS_DUP_COPIES", 5, 20) // records per key
	seed := seed()
	t.Logf("scenario 4: %d keys x %d identical copies, %d keys x %d copies with two amounts, seed %d",
		same, copies, mixed, copies, seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	start := time.Now()
	r := NewRig(t, RigOptions{})
	amountOf := map[string]int64{} // value -> amount
	var cmds []Command
	for k := range same + mixed {
		key := fmt.Sprintf("dup-%s-%04d", r.ID, k)
		for c := range copies {
			amount := int64(20_000 + k)
			if k >= same && c%2 == 1 {
				amount += 1 // the same key with other parameters
			}
			v := Payout(amount, key)
			amountOf[v] = amount
			cmds = append(cmds, Command{Kind: codec.KindInitPayout, Key: key, Value: v})
		}
	}
	rng.Shuffle(len(cmds), func(i, j int) { cmds[i], cmds[j] = cmds[j], cmds[i] })
	r.Produce(t, cmds...) // all at once: one produce call, one key's copies on one partition
	r.Outcomes.AwaitAnswered(t, r.Produced, 3*time.Minute)
	r.Sandbox.WaitIdle(t)
	executed := executedPayouts(t, r)
	row := Oracle(t, r, Row{Scenario: "4 duplicate commands", Seed: seed}, func(c Command, rs []Result) string {
		x, ok := executed[c.Key]
		if !ok {
			return "key never executed"
		}
		res := rs[0]
		if amountOf[c.Value] == x.amount {
			if res.Status != codec.StatusAccepted || deref(res.SessionID) != x.session {
				return fmt.Sprintf("want accepted with %s, got %s %s session %q", x.session, res.Status,
					deref(res.ErrorCode), deref(res.SessionID))
			}
			return ""
		}
		if res.Status != codec.StatusRejected || deref(res.ErrorCode) != "idempotency_key_params_mismatch" {
			return fmt.Sprintf("want rejected idempotency_key_params_mismatch, got %s %s", res.Status, deref(res.ErrorCode))
		}
		return ""
	})
	row.WallSeconds = time.Since(start).Seconds()
	Check(t, row)
}

// payoutExecution is what the sandbox did for one key: its session and
// the amount that moved.
type payoutExecution struct {
	session string
	amount  int64
}

// executedPayouts maps each executed key to its session and the amount of
// the payout booked in the ledger for that session.
func executedPayouts(t testing.TB, r *Rig) map[string]payoutExecution {
	t.Helper()
	amount := map[string]int64{}
	for _, e := range r.Sandbox.Ledger(t) {
		if e.Kind == "payout" {
			amount[e.SessionID] = e.Amount
		}
	}
	out := map[string]payoutExecution{}
	for _, x := range r.Sandbox.Executions(t) {
		if x.IdempotencyKey != "" && x.Result == "ok" {
			out[x.IdempotencyKey] = payoutExecution{session: x.SessionID, amount: amount[x.SessionID]}
		}
	}
	return out
}
