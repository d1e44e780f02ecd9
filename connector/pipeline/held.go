package pipeline

import "github.com/twmb/franz-go/pkg/kgo"

// Records held: consumed from the client, not yet in a batch.
//
// franz-go hands a fetch out partition by partition and fetches from a
// broker again only once its last fetch is all taken. A batch taken from the
// head of the fetched records was therefore one partition's backlog while
// every other partition of the fetch waited: a replica that took over a
// dead one's partitions answered the last of them seconds after the first.
// So the pipeline takes whatever is fetched into the held records and
// builds each batch from them one partition at a time (inTurn). It polls
// again only once fewer than a batch's worth (MaxPollRecords) are held, so
// it holds at most a batch's worth plus what one poll returned (the
// buffered fetches, at most one per broker).
//
// Not done: pausing a partition whose held records reach a bound, as Kafka
// Streams does, so that every fetch could be taken at once. franz-go keeps
// one fetch in flight per broker; one sent while a partition is paused
// leaves it out and, if the other partitions are idle, waits at the broker
// for up to the fetch's max wait (5 s by default) before a resumed
// partition is asked for again. A first version did that and stalled a
// partition for 5 s in make faults' scenario 5. So a broker's fetch still
// waits while another broker's fetch, already taken, is worked off.

// inTurn splits recs into a batch of at most n records and the rest,
// taking one record of each partition in turn (in the order the partitions
// first appear in recs) until n are taken. Each partition's part of the
// batch is a prefix of its records in recs, so a commit of the batch covers
// exactly what was called, and the rest of each partition follows it. Both
// keep the order the records had in recs.
func inTurn(recs []*kgo.Record, n int) (batch, rest []*kgo.Record) {
	if len(recs) <= n {
		return recs, nil
	}
	var parts []topicPartition
	queues := map[topicPartition][]int{}
	for i, r := range recs {
		tp := topicPartition{r.Topic, r.Partition}
		if _, ok := queues[tp]; !ok {
			parts = append(parts, tp)
		}
		queues[tp] = append(queues[tp], i)
	}
	take := make([]bool, len(recs))
	for taken := 0; taken < n; {
		for _, tp := range parts {
			if q := queues[tp]; len(q) > 0 && taken < n {
				take[q[0]], queues[tp] = true, q[1:]
				taken++
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
