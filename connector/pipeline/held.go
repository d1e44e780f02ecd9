package pipeline

import "github.com/twmb/franz-go/pkg/kgo"

// Records held: consumed from the client, not yet in a batch.
//
// franz-go hands a fetch out partition by partition and fetches from a
// broker again only once its last fetch is all taken. A batch taken from the
// head of the fetched records was therefore one partition's backlog while
// every other partition waited, those of other brokers included: a replica
// that took over a dead one's partitions answered the last of them seconds
// after the first. So the pipeline takes whatever is fetched into the held
// records and builds each batch from them one partition at a time
// (inTurn), and bounds them as Kafka Streams bounds its buffered records:
// fetching pauses for a partition while a batch's worth (MaxPollRecords) of
// it is held, and resumes once fewer are (limitHeld). Held records are at
// most a batch's worth and one fetch per partition.

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

// limitHeld pauses fetching the partitions that have MaxPollRecords or
// more records held, and resumes those it paused that have fewer now (none,
// after an abort or a revoke forgot them). A pause of its own is kept apart
// from the pipeline's pauses of whole topics (franz-go keeps the two
// apart as well).
func (p *Pipeline) limitHeld(cl *kgo.Client) {
	held := map[topicPartition]int{}
	for _, r := range p.held {
		held[topicPartition{r.Topic, r.Partition}]++
	}
	pause, resume := map[string][]int32{}, map[string][]int32{}
	for tp := range p.heldPaused {
		if held[tp] < p.cfg.MaxPollRecords {
			resume[tp.Topic] = append(resume[tp.Topic], tp.Partition)
			delete(p.heldPaused, tp)
		}
	}
	for tp, n := range held {
		if n >= p.cfg.MaxPollRecords && !p.heldPaused[tp] {
			pause[tp.Topic] = append(pause[tp.Topic], tp.Partition)
			p.heldPaused[tp] = true
		}
	}
	if len(pause) > 0 {
		cl.PauseFetchPartitions(pause)
	}
	if len(resume) > 0 {
		cl.ResumeFetchPartitions(resume)
	}
}
