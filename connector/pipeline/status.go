package pipeline

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// PartitionStatus is one partition the pipeline consumes, as /status shows
// it.
type PartitionStatus struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Lag is the records of the partition not yet polled as of its latest
	// fetch (paysession_pipeline_consumer_lag); absent before the first
	// fetch that returned records of it.
	Lag *int64 `json:"lag,omitempty"`
	// LastError is the last command of the partition committed with a
	// result other than accepted; absent when none was since the partition
	// was assigned.
	LastError *CommandError `json:"last_error,omitempty"`
}

// CommandError is a command's result other than accepted, as /status shows
// it: its status, error code and field, never the description (it may
// quote what the command carried).
type CommandError struct {
	Offset int64     `json:"offset"`
	Kind   string    `json:"kind"`
	Status string    `json:"status"`
	Code   string    `json:"code,omitempty"`
	Field  string    `json:"field,omitempty"`
	At     time.Time `json:"at"`
}

// Status is what the pipeline reports of itself at /status.
type Status struct {
	// Partitions are those assigned to this replica, by topic and number.
	Partitions []PartitionStatus `json:"partitions"`
	// InFlight is the API calls running now.
	InFlight int `json:"in_flight"`
	// Parked is the commands waiting in the retry topic's partitions this
	// replica owns, as of its last commit.
	Parked int64 `json:"parked"`
	// Retrying is the commands of running batches waiting for their next
	// attempt after a retryable failure.
	Retrying int64 `json:"retrying"`
}

// Status returns the pipeline's owned partitions with their lag and last
// result other than accepted, its API calls in flight, its parked
// commands and those retrying. Safe to call from any goroutine.
func (p *Pipeline) Status() Status {
	return Status{Partitions: p.owned.list(), InFlight: len(p.sem), Parked: p.parked.count.Load(),
		Retrying: p.retrying.Load()}
}

// ownedPartitions tracks the partitions assigned to the pipeline and their
// last observed lag, for Status; the Kafka client's callbacks and the Run
// goroutine write it, Status reads it.
type ownedPartitions struct {
	mu      sync.Mutex
	lag     map[topicPartition]*int64 // nil: assigned, lag not observed yet
	lastErr map[topicPartition]*CommandError
}

func (o *ownedPartitions) assign(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lag == nil {
		o.lag, o.lastErr = map[topicPartition]*int64{}, map[topicPartition]*CommandError{}
	}
	for t, ps := range parts {
		for _, p := range ps {
			o.lag[topicPartition{t, p}] = nil
			delete(o.lastErr, topicPartition{t, p})
		}
	}
}

func (o *ownedPartitions) revoke(parts map[string][]int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for t, ps := range parts {
		for _, p := range ps {
			delete(o.lag, topicPartition{t, p})
			delete(o.lastErr, topicPartition{t, p})
		}
	}
}

// setLags records the lags observeLag set, of partitions still owned.
func (o *ownedPartitions) setLags(lags map[topicPartition]int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for tp, n := range lags {
		if _, ok := o.lag[tp]; ok {
			o.lag[tp] = &n
		}
	}
}

// committed records the last result other than accepted of each owned
// partition among a committed batch's outcomes (the highest offset), at
// now.
func (o *ownedPartitions) committed(outs map[*inbound]*outcome, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	batch := map[topicPartition]*CommandError{}
	for _, out := range outs {
		v, r := out.verdict, out.in.rec
		if out.park != nil || v.Status == codec.StatusAccepted {
			continue
		}
		tp := topicPartition{r.Topic, r.Partition}
		if e := batch[tp]; e == nil || e.Offset < r.Offset {
			batch[tp] = &CommandError{Offset: r.Offset, Kind: out.in.kind, Status: string(v.Status),
				Code: v.Code, Field: v.Field, At: now.UTC()}
		}
	}
	for tp, e := range batch {
		if _, ok := o.lag[tp]; ok {
			o.lastErr[tp] = e
		}
	}
}

func (o *ownedPartitions) list() []PartitionStatus {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]PartitionStatus, 0, len(o.lag))
	for tp, n := range o.lag {
		ps := PartitionStatus{Topic: tp.Topic, Partition: tp.Partition}
		if n != nil {
			v := *n
			ps.Lag = &v
		}
		if e := o.lastErr[tp]; e != nil {
			v := *e
			ps.LastError = &v
		}
		out = append(out, ps)
	}
	slices.SortFunc(out, func(a, b PartitionStatus) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}
