package faults_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// openTransactions describes what is left of the connector's transactions
// on r's topics, "" for nothing: a transactional id of the connector (by
// its prefix) whose coordinator describes it as not complete (Ongoing, or
// Prepare* that does not finish), a producer that a partition leader still
// holds a transaction open for (describe producers: its current
// transaction's start offset), and a partition whose last stable offset
// stays below its high watermark. Any of these after the flow ended and
// every command was answered is a hanging transaction: it pins the last
// stable offset, so read_committed consumers stop at it.
func openTransactions(r *Rig) []string {
	adm := kadm.NewClient(r.Client)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var problems []string
	prefix := r.Connector.Env["PAYSESSION_KAFKA_TRANSACTIONAL_ID_PREFIX"]
	listed, err := adm.ListTransactions(ctx, nil, nil)
	if err != nil {
		return []string{"list transactions: " + err.Error()}
	}
	var ids []string
	for id := range listed {
		if strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		described, err := adm.DescribeTransactions(ctx, ids...)
		if err != nil {
			return []string{"describe transactions: " + err.Error()}
		}
		for _, id := range slices.Sorted(maps.Keys(described)) {
			d := described[id]
			switch {
			case d.Err != nil:
				problems = append(problems, fmt.Sprintf("transaction %s: %v", id, d.Err))
			case d.State != "Empty" && d.State != "CompleteCommit" && d.State != "CompleteAbort":
				problems = append(problems, fmt.Sprintf("transaction %s: %s since %v (partitions %v)", id, d.State,
					time.UnixMilli(d.StartTimestamp).UTC().Format(time.TimeOnly), d.Topics.Sorted()))
			}
		}
	}
	topics := slices.Sorted(maps.Values(r.Topics))
	md, err := adm.Metadata(ctx, topics...)
	if err != nil {
		return append(problems, "metadata: "+err.Error())
	}
	producers, err := adm.DescribeProducers(ctx, md.Topics.TopicsSet())
	if err != nil {
		return append(problems, "describe producers: "+err.Error())
	}
	producers.EachPartition(func(p kadm.DescribedProducersPartition) {
		if p.Err != nil {
			problems = append(problems, fmt.Sprintf("producers of %s/%d: %v", p.Topic, p.Partition, p.Err))
		}
	})
	producers.EachProducer(func(p kadm.DescribedProducer) {
		if p.CurrentTxnStartOffset >= 0 {
			problems = append(problems, fmt.Sprintf("%s/%d: producer %d (epoch %d) holds a transaction open from offset %d",
				p.Topic, p.Partition, p.ProducerID, p.ProducerEpoch, p.CurrentTxnStartOffset))
		}
	})
	high, err1 := adm.ListEndOffsets(ctx, topics...)
	stable, err2 := adm.ListCommittedOffsets(ctx, topics...)
	if err1 != nil || err2 != nil || high.Error() != nil || stable.Error() != nil {
		return append(problems, fmt.Sprintf("offsets: %v %v %v %v", err1, err2, high.Error(), stable.Error()))
	}
	high.Each(func(h kadm.ListedOffset) {
		if s, ok := stable.Lookup(h.Topic, h.Partition); !ok || s.Offset < h.Offset {
			problems = append(problems, fmt.Sprintf("%s/%d: last stable offset %d < high watermark %d", h.Topic, h.Partition,
				s.Offset, h.Offset))
		}
	})
	return problems
}
