package pipeline

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/header"
)

// Records held: consumed from the client, not yet in a batch.
//
// franz-go hands a fetch out partition by partition and fetches from a
// broker again only once its last fetch is all taken. A batch taken from the
// head of the fetched records was therefore one partition's backlog while
// every other partition of the fetch waited: a replica that took over a
// dead one's partitions answered the last of them seconds after the first.
// So the pipeline takes whatever is fetched into the held records and
// builds each batch from them one partition at a time (turns.take). It polls
// again only once fewer than a batch's worth (MaxPollRecords) are held, so
// it holds at most a batch's worth plus what one poll returned (the
// buffered fetches, at most one per broker), and the retry records a
// session's cap holds back (below).
//
// Not done: pausing a partition whose held records reach a bound, as Kafka
// Streams does, so that every fetch could be taken at once. franz-go keeps
// one fetch in flight per broker; one sent while a partition is paused
// leaves it out and, if the other partitions are idle, waits at the broker
// for up to the fetch's max wait (5 s by default) before a resumed
// partition is asked for again. A first version did that and stalled a
// partition for 5 s in make faults' scenario 5. So a broker's fetch still
// waits while another broker's fetch, already taken, is worked off.

// One session's flood (doc.go). A batch runs at most MaxPerSession
// commands of one lane (runLane); the lane's others in the batch are parked
// behind them and come back through the retry topic. There a batch takes
// at most MaxPerSession records of one lane (turns.take): a retry record
// names its lane in a header, so this is decided before the batch is read,
// and a retry partition's part of the batch stops at the first record past
// its lane's cap, keeping the prefix. The rest of that partition waits,
// held, for the following batches, the parked commands of other sessions
// behind the flood included. Held-back records do not count towards a
// batch's worth (turns.full): a flood of thousands held back must not stop
// the polls that bring every other partition's records. They are headers
// only (the command is read back from its source when taken), and
// heldBatches batches' worth of held records in all stops the polls as
// well, so memory stays bounded.

// heldBatches bounds the held records, held-back ones included, in
// batches' worth.
const heldBatches = 16

// turns is how batches are taken from the held records.
type turns struct {
	size    int    // records per batch at most (MaxPollRecords)
	retry   string // the retry topic: its records name their lane (header.Lane)
	perLane int    // retry records of one lane per batch at most; 0: no cap
}

// turns returns how the pipeline takes its batches.
func (p *Pipeline) turns() turns {
	return turns{size: p.cfg.MaxPollRecords, retry: p.cfg.Topics.Retry, perLane: p.cfg.MaxPerSession}
}

// take splits recs into a batch of at most size records and the rest,
// taking one record of each partition in turn (in the order the partitions
// first appear in recs) until size are taken. Each partition's part of the
// batch is a prefix of its records in recs, so a commit of the batch covers
// exactly what was called, and the rest of each partition follows it. Both
// keep the order the records had in recs. A retry partition's part stops
// before the first record whose lane has perLane records in the batch
// already.
func (t turns) take(recs []*kgo.Record) (batch, rest []*kgo.Record) {
	queues, parts := t.queues(recs)
	take := make([]bool, len(recs))
	for taken, more := 0, true; taken < t.size && more; {
		more = false
		for _, tp := range parts {
			if q := queues[tp]; len(q) > 0 && taken < t.size {
				take[q[0]], queues[tp] = true, q[1:]
				taken++
				more = more || len(q) > 1
			}
		}
	}
	for i, r := range recs {
		if take[i] {
			batch = append(batch, r)
		} else {
			rest = append(rest, r)
		}
	}
	return batch, rest
}

// full reports whether a poll should wait: the held records make a batch's
// worth that a batch may take, or heldBatches batches' worth in all.
func (t turns) full(held []*kgo.Record) bool {
	if len(held) >= heldBatches*t.size {
		return true
	}
	queues, _ := t.queues(held)
	n := 0
	for _, q := range queues {
		n += len(q)
	}
	return n >= t.size
}

// queues lists, per partition in the order they first appear in recs, the
// indexes of the records a batch may take: all of a command partition, a
// retry partition's up to the first record past its lane's cap.
func (t turns) queues(recs []*kgo.Record) (map[topicPartition][]int, []topicPartition) {
	var parts []topicPartition
	queues := map[topicPartition][]int{}
	stopped := map[topicPartition]bool{}
	perLane := map[topicPartition]map[string]int{}
	for i, r := range recs {
		tp := topicPartition{r.Topic, r.Partition}
		if _, ok := queues[tp]; !ok {
			parts = append(parts, tp)
			queues[tp] = nil
		}
		if stopped[tp] {
			continue
		}
		if lane, ok := header.Get(r, header.Lane); ok && t.perLane > 0 && r.Topic == t.retry {
			if perLane[tp] == nil {
				perLane[tp] = map[string]int{}
			}
			if perLane[tp][lane] == t.perLane {
				stopped[tp] = true
				continue
			}
			perLane[tp][lane]++
		}
		queues[tp] = append(queues[tp], i)
	}
	return queues, parts
}
