package faults_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/paysession/paysession/connector/ingress"
	"github.com/paysession/paysession/integration/leakscan"
	"github.com/paysession/paysession/internal/codec"
)

// Row is one scenario's line of the table: the three sets compared, and
// what the scenario did to the system.
type Row struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Commands int    `json:"commands"` // command records produced
	Kills    int    `json:"kills"`    // SIGKILLs of the connector (or the broker)
	Restarts int    `json:"restarts"` // process starts after a kill or scale change
	// InWindow counts, over all kills, commands the sandbox had executed but
	// whose result was not committed when the connector died.
	InWindow      int `json:"in_window"`
	Executed      int `json:"executed"`       // idempotency keys the sandbox executed
	ExecutedTwice int `json:"executed_twice"` // keys executed more than once + operations moving money twice
	Results       int `json:"results"`        // result records answering a produced record
	Missing       int `json:"missing"`        // produced records without a result or dead letter
	Duplicate     int `json:"duplicate"`      // results beyond one per produced record, or answering none
	Wrong         int `json:"wrong"`          // results with a status the scenario's contract forbids
	// Webhooks: delivered by the sandbox, distinct event ids published,
	// records beyond one per event id (only when the rig wires webhooks).
	WebhooksExpected  int `json:"webhooks_expected"`
	WebhooksPublished int `json:"webhooks_published"`
	WebhooksDuplicate int `json:"webhooks_duplicate"`
	// FalseWebhookEvents counts records on the webhook-events topic that
	// are not the first one of a webhook the sandbox sent (a forged,
	// foreign, re-serialized or replayed one published), plus session
	// states a webhook attributed to a project not the session's
	// (scenario 11 measures it; 0 elsewhere).
	FalseWebhookEvents int `json:"false_webhook_events"`
	// CardLeaks counts full card numbers found (leakscan) in the outcome
	// topics' records (results, sessions, webhook events, dead letters:
	// keys, values, headers) and in the rig connector's log.
	CardLeaks   int     `json:"card_leaks"`
	WallSeconds float64 `json:"wall_seconds"`
	// DeadLetterExtra counts dead letters beyond one per produced record.
	DeadLetterExtra int `json:"dead_letter_extra"`
	// The columns below are measured by the scenarios of issue 13 only
	// (nil elsewhere, printed as "-").
	//
	// MaxSends is the most API requests one idempotency key received
	// (idempotent replays included: the rig's counting proxy).
	MaxSends *Count `json:"max_sends_per_key,omitempty"`
	// ReadyzFailed counts the /readyz polls that answered 503 naming the
	// missing topic while it was missing.
	ReadyzFailed *Count `json:"readyz_failed,omitempty"`
	// AnsweredSeconds is the time from the first command produced until
	// every valid command had its result (-1: some never did).
	AnsweredSeconds *Seconds `json:"answered_seconds,omitempty"`
	// BoundSeconds is the bound a scenario states for AnsweredSeconds
	// (scenario 11: the worst latency of a valid command; nil elsewhere).
	BoundSeconds *Seconds `json:"bound_seconds,omitempty"`
	// FailoverP50 and FailoverMax are the times from a SIGKILL until work
	// flows again: scenario 1, the first result committed after it (the
	// process restarted at once, static membership); scenario 5, until every
	// partition of the killed replica answered again from the others
	// (not restarted, default session timeout). Nil elsewhere.
	FailoverP50 *Seconds `json:"failover_p50_seconds,omitempty"`
	FailoverMax *Seconds `json:"failover_max_seconds,omitempty"`
	// StaleStates counts sessions whose last record on the sessions topic
	// is not the sandbox's final state (scenario 8; nil elsewhere).
	StaleStates *Count `json:"stale_states,omitempty"`
}

// Count is a column that some scenarios measure; a nil *Count prints "-".
type Count int

func (c *Count) String() string {
	if c == nil {
		return "-"
	}
	return strconv.Itoa(int(*c))
}

// Seconds is a duration column that some scenarios measure; a nil
// *Seconds prints "-".
type Seconds float64

func (s *Seconds) String() string {
	if s == nil {
		return "-"
	}
	return strconv.FormatFloat(float64(*s), 'f', 1, 64)
}

// Verdict is a scenario's rule for one produced record's results: it
// returns "" when they are right, else why not. Nil accepts any status.
type Verdict func(c Command, rs []Result) string

// Oracle compares the three sets of r once every produced record is
// answered and the sandbox is idle, and returns the filled row. It counts
// per record (source topic, partition, offset), not per key.
func Oracle(t testing.TB, r *Rig, row Row, verdict Verdict) Row {
	t.Helper()
	r.Sandbox.WaitIdle(t)
	results, dls := r.Outcomes.Results(), r.Outcomes.DeadLetters()
	if errs := r.Outcomes.DecodeErrors(); len(errs) > 0 {
		t.Errorf("%d outcome records did not decode, first: %v", len(errs), errs[0])
	}
	bySource := map[Position][]Result{}
	for _, res := range results {
		bySource[res.Source()] = append(bySource[res.Source()], res)
	}
	row.Commands = len(r.Produced)
	answeredDL := answered(r.Produced, nil, dls)
	keys := map[string]bool{}
	for _, c := range r.Produced {
		keys[c.Key] = true
		rs := bySource[c.At]
		row.Results += len(rs)
		switch {
		case len(rs) == 0 && !answeredDL[c.At]:
			row.Missing++
			t.Errorf("missing: %s at %v has no result", c.Key, c.At)
		case len(rs) > 1:
			row.Duplicate += len(rs) - 1
			t.Errorf("duplicate: %s at %v has %d results", c.Key, c.At, len(rs))
		}
		delete(bySource, c.At)
		if verdict != nil && len(rs) > 0 {
			if why := verdict(c, rs); why != "" {
				row.Wrong++
				t.Errorf("wrong: %s at %v: %s", c.Key, c.At, why)
			}
		}
	}
	for src, rs := range bySource {
		row.Duplicate += len(rs)
		t.Errorf("duplicate: %d results answer %v, which no test produced", len(rs), src)
	}
	row.DeadLetterExtra = deadLetterExtra(t, r.Produced, dls)
	row.Executed, row.ExecutedTwice = ledgerCounts(t, r, keys)
	row.WebhooksExpected, row.WebhooksPublished, row.WebhooksDuplicate = webhookCounts(t, r)
	for _, f := range r.Outcomes.LeakFindings() {
		t.Errorf("card data in an outcome record: %s", f)
	}
	row.CardLeaks = r.Outcomes.Leaks() + logLeaks(t, r.Connector.Log())
	return row
}

// deadLetterExtra counts the dead letters of produced records beyond one
// per record.
func deadLetterExtra(t testing.TB, produced []Command, dls []codec.DeadLetter) int {
	t.Helper()
	want := map[Position]bool{}
	for _, c := range produced {
		want[c.At] = true
	}
	per := map[Position]int{}
	for _, d := range dls {
		if p := (Position{d.OriginalTopic, d.OriginalPartition, d.OriginalOffset}); want[p] {
			per[p]++
		}
	}
	extra := 0
	for p, n := range per {
		if n > 1 {
			extra += n - 1
			t.Errorf("dead letters: the record at %v has %d", p, n)
		}
	}
	return extra
}

// logLeaks counts the card numbers in a process log (the finding, masked,
// is reported; never the number).
func logLeaks(t testing.TB, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("read %s for the leak scan: %v", path, err)
		return 0
	}
	// Count only the cards the scenarios sent (notSent): the scan is wide
	// on purpose (any separator, any group size), so digit runs of log
	// timestamps can look like a Luhn-valid number.
	n := 0
	for _, f := range leakscan.Scan(b) {
		if notSent(f) {
			continue
		}
		t.Errorf("card data in the connector log: %s", f)
		n++
	}
	return n
}

// ledgerCounts returns the keys of keys the sandbox executed, and the
// number executed twice: keys with more than one execution plus
// operations with more than one money movement of a kind.
func ledgerCounts(t testing.TB, r *Rig, keys map[string]bool) (executed, twice int) {
	t.Helper()
	perKey := map[string]int{}
	for _, x := range r.Sandbox.Executions(t) {
		if keys[x.IdempotencyKey] {
			perKey[x.IdempotencyKey]++
		}
	}
	for k, n := range perKey {
		executed++
		if n > 1 {
			twice++
			t.Errorf("executed twice: key %s executed %d times", k, n)
		}
	}
	perMove := map[string]int{}
	for _, e := range r.Sandbox.Ledger(t) {
		perMove[e.OperationID+"/"+e.RefundID+"/"+e.Kind]++
	}
	for m, n := range perMove {
		if n > 1 {
			twice++
			t.Errorf("executed twice: money movement %s recorded %d times", m, n)
		}
	}
	return executed, twice
}

// webhookCounts compares the sandbox's delivered webhooks with the
// webhook-events records by event id (hex SHA-256 of the body).
func webhookCounts(t testing.TB, r *Rig) (expected, published, duplicate int) {
	t.Helper()
	// A webhook event reaches its topic one session-writer transaction after
	// the update the connector acknowledged: wait for it, up to a bound.
	deadline := time.Now().Add(60 * time.Second)
	for {
		expected, published, duplicate = webhookCountsNow(t, r)
		if published >= expected || time.Now().After(deadline) {
			return expected, published, duplicate
		}
		time.Sleep(200 * time.Millisecond) // the outcome reader's pace
	}
}

// webhookCountsNow counts what webhookCounts does, once.
func webhookCountsNow(t testing.TB, r *Rig) (expected, published, duplicate int) {
	t.Helper()
	seen := map[string]int{}
	for _, w := range r.Outcomes.Webhooks() {
		seen[w.EventID]++
	}
	for _, d := range r.Sandbox.Webhooks(t) {
		if d.State != "delivered" {
			continue
		}
		expected++
		if seen[ingress.EventID(d.Body)] > 0 {
			published++
		}
	}
	for _, n := range seen {
		duplicate += n - 1
	}
	return expected, published, duplicate
}

// Check fails t when a loss or duplicate column of row is not zero, and
// adds the row to the table printed and written at the end of the run.
func Check(t testing.TB, row Row) {
	t.Helper()
	table.add(row)
	t.Logf("%s: %+v", row.Scenario, row)
	if row.StaleStates != nil && *row.StaleStates > 0 {
		t.Errorf("%s: %d sessions end on a state that is not the sandbox's final one; want 0", row.Scenario, *row.StaleStates)
	}
	if row.ExecutedTwice+row.Missing+row.Duplicate+row.Wrong+row.CardLeaks+row.DeadLetterExtra > 0 {
		t.Errorf("%s: executed twice %d, missing %d, duplicate %d, wrong %d, card leaks %d, extra dead letters %d; want 0 each",
			row.Scenario, row.ExecutedTwice, row.Missing, row.Duplicate, row.Wrong, row.CardLeaks, row.DeadLetterExtra)
	}
	if lost := row.WebhooksExpected - row.WebhooksPublished; lost > 0 || row.WebhooksDuplicate > 0 || row.FalseWebhookEvents > 0 {
		t.Errorf("%s: webhooks unpublished %d, duplicate %d, false events %d; want 0 each", row.Scenario, lost,
			row.WebhooksDuplicate, row.FalseWebhookEvents)
	}
	if row.AnsweredSeconds != nil && row.BoundSeconds != nil && (*row.AnsweredSeconds < 0 || *row.AnsweredSeconds > *row.BoundSeconds) {
		t.Errorf("%s: valid commands answered after %v s, want at most %v s", row.Scenario, row.AnsweredSeconds, row.BoundSeconds)
	}
}

// table collects the rows of this test binary run.
var table rows

type rows struct {
	mu   sync.Mutex
	rows []Row
}

func (rs *rows) add(r Row) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.rows = append(rs.rows, r)
}

// print writes the table with one line per scenario.
func (rs *rows) print(w io.Writer) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tseed\tcommands\tkills\trestarts\tin window\texecuted\texec twice\tresults\tmissing\tduplicate\twrong\twh expected\twh published\twh duplicate\tfalse wh\tcard leaks\tdl extra\tmax sends\treadyz 503\tanswered s\tbound s\tfailover p50 s\tfailover max s\tstale states\twall s\t")
	for _, r := range rs.rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n", r.Scenario, r.Seed, r.Commands,
			r.Kills, r.Restarts, r.InWindow, r.Executed, r.ExecutedTwice, r.Results, r.Missing, r.Duplicate, r.Wrong,
			r.WebhooksExpected, r.WebhooksPublished, r.WebhooksDuplicate, r.FalseWebhookEvents, r.CardLeaks, r.DeadLetterExtra,
			r.MaxSends, r.ReadyzFailed, r.AnsweredSeconds, r.BoundSeconds, r.FailoverP50, r.FailoverMax, r.StaleStates, r.WallSeconds)
	}
	_ = tw.Flush()
}

// write stores the rows as JSON at path (creating its directory).
func (rs *rows) write(path string, scale string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	b, err := json.MarshalIndent(map[string]any{"scale": scale, "written_at": time.Now().UTC(), "scenarios": rs.rows}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
