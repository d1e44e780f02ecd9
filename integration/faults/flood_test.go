package faults_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

// TestSessionFlood is scenario 10 (issue 38 item 5): one session's command
// flood beside valid traffic. The sandbox answers every call after 20 ms;
// one payout makes a session, then floodCommands status_refresh commands
// for it are produced at once (spread over the topic's partitions) and
// payouts follow at a steady pace while the flood is worked off. The
// connector runs at most PAYSESSION_PIPELINE_MAX_PER_SESSION (8) of the
// flood per batch and parks the rest, which drain through the retry topic
// 8 a batch: a payout beside the flood waits for the batches in flight
// when it arrives, at most a few of the flood's calls each, where a batch
// used to end only with the flood's lane (up to the 5 s batch deadline).
//
// The contract: every record one result, accepted; the flood's status
// queries executed one at a time, one per command, in offset order on each
// partition; and every payout answered after at most floodBound of the
// flood's results were committed while it waited.
func TestSessionFlood(t *testing.T) {
	t.Parallel()
	flood := size("FAULTS_FLOOD_COMMANDS", 200, 2_000)
	beside := size("FAULTS_FLOOD_PAYOUTS", 20, 100)
	pace := 100 * time.Millisecond
	t.Logf("scenario 10: %d status_refresh commands of one session at 20 ms a call, %d payouts beside them every %v", flood, beside, pace)
	start := time.Now()
	r := NewRig(t, RigOptions{SandboxFlags: []string{"-latency", "20ms"}})
	first := r.Produce(t, Command{Kind: codec.KindInitPayout, Key: fmt.Sprintf("flood-%s-session", r.ID), Value: Payout(30_000, "flood")})
	r.Outcomes.AwaitAnswered(t, first, time.Minute)
	session := ""
	for _, res := range r.Outcomes.Results() {
		if res.Source() == first[0].At {
			session = deref(res.SessionID)
		}
	}
	if session == "" {
		t.Fatal("the first payout's result names no session")
	}
	var cmds []Command
	for i := range flood {
		cmds = append(cmds, Command{Kind: codec.KindStatusRefresh, Key: fmt.Sprintf("flood-%s-%05d", r.ID, i),
			Value: fmt.Sprintf(`{"session_id":%q}`, session)})
	}
	floodCmds := r.Produce(t, cmds...)
	var payoutCmds []Command
	tick := time.NewTicker(pace)
	for i := range beside {
		<-tick.C // a steady flow beside the flood
		key := fmt.Sprintf("flood-%s-payout-%04d", r.ID, i)
		payoutCmds = append(payoutCmds, r.Produce(t, Command{Kind: codec.KindInitPayout, Key: key, Value: Payout(int64(31_000+i), key)})...)
	}
	tick.Stop()
	r.Outcomes.AwaitAnswered(t, r.Produced, 5*time.Minute)

	bySource := map[Position]Result{}
	for _, res := range r.Outcomes.Results() {
		bySource[res.Source()] = res
	}
	var floodDone []time.Time // when each of the flood's results was committed
	for _, c := range floodCmds {
		floodDone = append(floodDone, bySource[c.At].CompletedAt)
	}
	var waits []time.Duration
	most := 0
	for _, c := range payoutCmds {
		res := bySource[c.At]
		if res.RecordTimestamp == nil {
			continue
		}
		during := 0
		for _, d := range floodDone {
			if d.After(*res.RecordTimestamp) && !d.After(res.CompletedAt) {
				during++
			}
		}
		most = max(most, during)
		waits = append(waits, res.CompletedAt.Sub(*res.RecordTimestamp))
	}
	slices.Sort(waits)
	if len(waits) > 0 {
		t.Logf("payouts beside the flood: answered after p50 %v, max %v; at most %d of the flood's results committed while one waited (bound %d)",
			waits[len(waits)/2].Round(time.Millisecond), waits[len(waits)-1].Round(time.Millisecond), most, floodBound)
	}
	if most > floodBound {
		t.Errorf("a payout waited while %d of the flood's results were committed, want at most %d", most, floodBound)
	}
	checkFloodOrder(t, r, session, floodCmds, bySource)

	row := Oracle(t, r, Row{Scenario: "10 session flood", Seed: seed()}, func(c Command, rs []Result) string {
		if rs[0].Status != codec.StatusAccepted {
			return fmt.Sprintf("want accepted, got %s %s", rs[0].Status, deref(rs[0].ErrorCode))
		}
		return ""
	})
	row.WallSeconds = time.Since(start).Seconds()
	Check(t, row)
}

// floodBound is how many of the flood's results may be committed while a
// payout beside it waits, MaxPerSession (8) a batch: the batch running when
// it arrives, the one polled ahead, its own, and one more when the fetch in
// flight as it arrived came back without it (3 batches were seen).
const floodBound = 4 * 8

// checkFloodOrder fails t unless the sandbox executed the session's status
// queries one at a time, one per flood command, and each partition's flood
// commands were attempted in offset order.
func checkFloodOrder(t *testing.T, r *Rig, session string, flood []Command, bySource map[Position]Result) {
	t.Helper()
	type span struct{ from, to time.Time }
	var queries []span
	for _, x := range r.Sandbox.Executions(t) {
		if x.SessionID == session && x.Method == "session/status" {
			queries = append(queries, span{x.Started, x.Finished})
		}
	}
	slices.SortFunc(queries, func(a, b span) int { return a.from.Compare(b.from) })
	for i := 1; i < len(queries); i++ {
		if queries[i].from.Before(queries[i-1].to) {
			t.Errorf("status queries of the flooded session overlapped at %v: want one at a time", queries[i].from)
			break
		}
	}
	if len(queries) != len(flood) {
		t.Errorf("%d status queries of the flooded session executed, want %d (one per command)", len(queries), len(flood))
	}
	last := map[int32]Result{}
	for _, c := range flood { // in offset order on each partition
		res := bySource[c.At]
		if prev, ok := last[c.At.Partition]; ok && res.FirstAttemptAt != nil && prev.FirstAttemptAt != nil &&
			!res.FirstAttemptAt.After(*prev.FirstAttemptAt) {
			t.Errorf("%s (offset %d) was attempted at %v, not after the offset %d before it: want offset order",
				c.Key, c.At.Offset, res.FirstAttemptAt, prev.SourceOffset)
		}
		last[c.At.Partition] = res
	}
}
