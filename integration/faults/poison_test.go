package faults_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// poisonKind is one kind of record of scenario 7: how to build it from a
// key and a number, and whether the connector must accept it.
type poisonKind struct {
	name  string
	valid bool
	// record returns the record's key and value from a fresh key that
	// lands on the intended partition (a kind may use its own key), the
	// record's number n and its number among its kind's records nth.
	record func(key string, n, nth int) (string, string)
}

// oversizedBytes is the padding of an oversized record: above the dead-letter
// topic's 1 MB (the broker's default), below the command topic's 4 MiB.
const oversizedBytes = 2 << 20

// cardKeys are card numbers used as idempotency keys: the sandbox's test
// cards (the leak scan counts those) and separated forms of them.
var cardKeys = []string{paysim.CardSuccess, paysim.CardHold, "4111.1111.1111.1111", "5555-5555-5555-4444",
	paysim.CardDeclined, "4111 1111 1111 1111"}

// poisonKinds are the records scenario 7 interleaves, valid first.
var poisonKinds = []poisonKind{
	{"valid", true, func(key string, n, _ int) (string, string) { return key, Payout(int64(50_000+n), key) }},
	{"oversized", false, func(key string, n, _ int) (string, string) {
		// An unknown member: invalid, and its dead letter would not fit.
		p := Payout(int64(50_000+n), key)
		return key, p[:len(p)-1] + `,"padding":"` + strings.Repeat("x", oversizedBytes) + `"}`
	}},
	{"bad-amount", false, func(key string, n, _ int) (string, string) { return key, Payout(-int64(n+1), key) }},
	{"duplicate-member", false, func(key string, n, _ int) (string, string) {
		// A validator that keeps the first member saw 100; last-wins pays 999,999.
		return key, `{"amount":100,` + Payout(999_999, key)[1:]
	}},
	{"case-member", false, func(key string, n, _ int) (string, string) {
		return key, strings.Replace(Payout(100, key), `"amount":100`, `"amount":100,"AMOUNT":999999`, 1)
	}},
	{"non-utf8", false, func(key string, n, _ int) (string, string) {
		// A raw 0xff byte inside a JSON string (valid JSON syntax otherwise).
		return key, strings.Replace(Payout(int64(50_000+n), key), `"reference":"`+key+`"`, `"reference":"`+key+"\xff\"", 1)
	}},
	{"card-key", false, func(key string, n, nth int) (string, string) {
		return cardKeys[nth%len(cardKeys)], Payout(int64(50_000+n), key)
	}},
}

// TestPoisonStream is scenario 7 (issue 13): valid payouts interleaved, on
// every partition of the init_payout topic, with records the connector
// must answer invalid: oversized (2 MiB, on a command topic created with
// max.message.bytes=4194304 while the dead-letter topic keeps the broker's
// default 1 MB), a bad amount, a duplicate member ({"amount":100,
// "amount":999999,...}), a member differing only in case ("AMOUNT"), a raw
// 0xff byte inside a JSON string, and a card number as the key. Each round
// puts on each partition a valid payout, one poison record (each partition
// meets every kind over the rounds) and another valid payout; a tail of
// valid payouts on every partition follows, all in one produce call.
//
// The contract: every record gets exactly one result (valid ones accepted
// with their key's session, the others invalid) and at most one dead
// letter; every record is answered within a bound (small: 2 minutes, full:
// 5), the answered-s column says when the last valid one was; nothing
// executes twice; no card number reaches an outcome topic or the log.
func TestPoisonStream(t *testing.T) {
	t.Parallel()
	rounds := size("FAULTS_POISON_ROUNDS", 1, 5) * (len(poisonKinds) - 1)
	tail := size("FAULTS_POISON_TAIL", 2, 50) // valid payouts per partition after the rounds
	bound := time.Duration(size("FAULTS_POISON_BOUND_SECONDS", 120, 300)) * time.Second
	const partitions = 3
	seed := seed()
	t.Logf("scenario 7: %d rounds over %d partitions, tail %d, bound %v, seed %d", rounds, partitions, tail, bound, seed)
	brokers := harness.Kafka(t)
	binary(t, "paysim")
	start := time.Now()
	r := NewRig(t, RigOptions{Brokers: brokers, Partitions: partitions, MaxRecordBytes: 4_000_000,
		TopicConfigs: map[string]map[string]string{"PAYSESSION_TOPIC_INIT_PAYOUT": {"max.message.bytes": "4194304"}}})

	kindOf := map[Position]poisonKind{}
	var cmds []Command
	var kinds []poisonKind
	keyOn := keysOnPartitions(r.Topic(codec.KindInitPayout), partitions)
	nth := map[string]int{}
	add := func(k poisonKind, p int32) {
		n := len(cmds)
		key, value := k.record(keyOn(p, fmt.Sprintf("poison-%s-%s-%05d", r.ID, k.name, n)), n, nth[k.name])
		nth[k.name]++
		cmds = append(cmds, Command{Kind: codec.KindInitPayout, Key: key, Value: value})
		kinds = append(kinds, k)
	}
	for round := range rounds {
		for p := range int32(partitions) {
			add(poisonKinds[0], p)
			add(poisonKinds[1+(round+int(p))%(len(poisonKinds)-1)], p)
			add(poisonKinds[0], p)
		}
	}
	for range tail {
		for p := range int32(partitions) {
			add(poisonKinds[0], p)
		}
	}
	produced := time.Now()
	for i, c := range r.Produce(t, cmds...) {
		kindOf[c.At] = kinds[i]
	}
	t.Logf("produced %d records (%d oversized) at %v", len(cmds), countKind(kinds, "oversized"),
		time.Since(start).Round(time.Millisecond))

	var valid []Command
	for _, c := range r.Produced {
		if kindOf[c.At].valid {
			valid = append(valid, c)
		}
	}
	validAnswered := -1.0 // seconds from the produce call until every valid payout had its result
	within(bound, func() bool {
		if validAnswered < 0 && unanswered(r, valid) == 0 {
			validAnswered = time.Since(produced).Seconds()
		}
		return unanswered(r, r.Produced) == 0
	})
	if n := unanswered(r, r.Produced); n > 0 {
		t.Errorf("%d of %d records without a result after %v (%d of %d valid)", n, len(r.Produced), bound,
			unanswered(r, valid), len(valid))
		for name, n := range unansweredByKind(r, kindOf) {
			t.Logf("without a result: %d %s", n, name)
		}
	}

	executed := executedPayouts(t, r)
	row := Oracle(t, r, Row{Scenario: "7 poison stream", Seed: seed}, func(c Command, rs []Result) string {
		k := kindOf[c.At]
		if k.valid {
			return acceptedWithSession(executed)(c, rs)
		}
		for _, res := range rs {
			if res.Status != codec.StatusInvalid {
				return fmt.Sprintf("%s record: want invalid, got %s %s", k.name, res.Status, deref(res.ErrorCode))
			}
		}
		return ""
	})
	// The contract is a result for every record: a dead letter alone (which
	// the oracle counts as an answer) is missing here.
	withResult := answered(r.Produced, r.Outcomes.Results(), nil)
	for _, c := range r.Produced {
		if !withResult[c.At] && answeredByDeadLetter(r, c) {
			row.Missing++
			t.Errorf("missing: %s record at %v has a dead letter but no result", kindOf[c.At].name, c.At)
		}
	}
	answeredIn := Seconds(validAnswered)
	row.AnsweredSeconds = &answeredIn
	row.WallSeconds = time.Since(start).Seconds()
	Check(t, row)
	if validAnswered < 0 {
		t.Errorf("valid payouts still without a result %v after they were produced", bound)
	}
}

// keysOnPartitions returns a function that extends a key until the rig
// producer's partitioner (murmur2 of the key, as Kafka's default) puts it
// on partition p of topic.
func keysOnPartitions(topic string, partitions int) func(p int32, key string) string {
	tp := kgo.StickyKeyPartitioner(nil).ForTopic(topic)
	return func(p int32, key string) string {
		for i := 0; ; i++ {
			k := fmt.Sprintf("%s-%d", key, i)
			if tp.Partition(&kgo.Record{Key: []byte(k)}, partitions) == int(p) {
				return k
			}
		}
	}
}

func countKind(kinds []poisonKind, name string) int {
	n := 0
	for _, k := range kinds {
		if k.name == name {
			n++
		}
	}
	return n
}

// unansweredByKind counts the produced records without a result by kind.
func unansweredByKind(r *Rig, kindOf map[Position]poisonKind) map[string]int {
	got := answered(r.Produced, r.Outcomes.Results(), nil)
	out := map[string]int{}
	for _, c := range r.Produced {
		if !got[c.At] {
			out[kindOf[c.At].name]++
		}
	}
	return out
}

// answeredByDeadLetter reports whether c has a dead letter.
func answeredByDeadLetter(r *Rig, c Command) bool {
	return answered([]Command{c}, nil, r.Outcomes.DeadLetters())[c.At]
}
