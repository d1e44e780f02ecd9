package pipeline

import (
	"sort"
	"sync/atomic"

	"github.com/paysession/paysession/internal/header"
)

// lane is a run of commands that must execute one after another: every
// command of one session, in the order they were consumed. Commands without
// a session form lanes of one.
type lane struct {
	key   string
	items []*inbound
	// behind is set when earlier commands of this session are parked in the
	// retry topic but not in this batch: the lane's fresh commands must queue
	// behind them (they are parked too, keeping order).
	behind bool
	// ready is how many of items, from the first, the session's order lets
	// run in this batch: its retry records up to the first whose
	// predecessor is still parked outside the batch (only a lane with a
	// queue has one), then its fresh commands unless behind. The items past
	// ready are parked behind the others.
	ready int
}

// groupLanes groups a batch into lanes. Records from the retry topic come
// first in each lane (they were consumed earlier), in the order they must
// run (queue.order), then fresh records in offset order within a partition
// and by record time across partitions.
func groupLanes(ins []*inbound, parked *parkedSet) []*lane {
	ordered := make([]*inbound, len(ins))
	copy(ordered, ins)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].fromRetry && !ordered[j].fromRetry })
	byKey := make(map[string]*lane)
	var lanes []*lane
	inBatch := make(map[string]map[string]bool) // lane → keys of retry records in this batch
	for _, in := range ordered {
		k := laneOf(in)
		l := byKey[k]
		if l == nil {
			l = &lane{key: k}
			byKey[k] = l
			lanes = append(lanes, l)
		}
		l.items = append(l.items, in)
		if in.fromRetry {
			if inBatch[k] == nil {
				inBatch[k] = make(map[string]bool)
			}
			inBatch[k][in.key] = true
		}
	}
	for _, l := range lanes {
		l.behind = parked.hasOthers(l.key, inBatch[l.key])
		l.items = mergeByTime(l.items)
		retries := 0
		for retries < len(l.items) && l.items[retries].fromRetry {
			retries++
		}
		l.ready = retries
		if q := parked.queues[l.key]; q != nil {
			l.ready = q.order(l.items[:retries])
		}
		if l.ready == retries && !l.behind {
			l.ready = len(l.items)
		}
	}
	return lanes
}

// laneOf is the lane of a command: laneKey, except that a retry record whose
// command could not be read back or decoded stays in the lane its retry
// record names (header.Lane), so it keeps its place in its session.
func laneOf(in *inbound) string {
	if in.cmd == nil && in.fromRetry {
		if l, ok := header.Get(in.rec, header.Lane); ok && l != "" {
			return l
		}
	}
	return in.laneKey()
}

// mergeByTime orders a lane's fresh commands across partitions (a session's
// capture and refund live on different topics) by record time, keeping each
// partition's offset order: a k-way merge of the per-partition runs.
// Retry-topic commands stay first, in their own order.
func mergeByTime(items []*inbound) []*inbound {
	type tp struct {
		topic string
		part  int32
	}
	var out []*inbound
	var runs [][]*inbound
	idx := map[tp]int{}
	for _, in := range items {
		if in.fromRetry {
			out = append(out, in)
			continue
		}
		k := tp{in.rec.Topic, in.rec.Partition}
		i, ok := idx[k]
		if !ok {
			i = len(runs)
			idx[k] = i
			runs = append(runs, nil)
		}
		runs[i] = append(runs[i], in)
	}
	for {
		best := -1
		for i, r := range runs {
			if len(r) > 0 && (best < 0 || r[0].rec.Timestamp.Before(runs[best][0].rec.Timestamp)) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, runs[best][0])
		runs[best] = runs[best][1:]
	}
}

// parkedSet remembers, per session lane, the idempotency keys of commands
// parked in the retry topic and not yet consumed back. It is what keeps a
// session's order across batches: a fresh command of a session with parked
// commands is parked behind them. It lives in memory for one group session;
// changes of a batch apply only when its transaction commits.
type parkedSet struct {
	m map[string]map[string]bool
	// queues holds the order of the lanes whose parked commands stand out
	// of order in the retry topic (queue).
	queues map[string]*queue
	// count is len() kept up to date, for Status from any goroutine.
	count atomic.Int64
	// stale says the set is rebuilt from the retry topic before the next
	// poll (seedParked): a session starts, or an abort (a rebalance may
	// have moved retry partitions).
	stale bool
}

func newParkedSet() *parkedSet {
	return &parkedSet{m: make(map[string]map[string]bool), queues: make(map[string]*queue)}
}

// hasOthers reports whether the lane has parked keys outside the given set.
func (s *parkedSet) hasOthers(laneKey string, except map[string]bool) bool {
	for k := range s.m[laneKey] {
		if !except[k] {
			return true
		}
	}
	return false
}

// apply records a committed batch: keys consumed back from the retry topic
// leave the set, keys parked by the batch join it. Both lists are in the
// order of the batch's lanes.
func (s *parkedSet) apply(consumed, parked []laneKeyPair) {
	s.reorder(consumed, parked)
	for _, p := range consumed {
		if s.m[p.lane][p.key] {
			s.count.Add(-1)
		}
		delete(s.m[p.lane], p.key)
		if len(s.m[p.lane]) == 0 {
			delete(s.m, p.lane)
		}
	}
	for _, p := range parked {
		if s.m[p.lane] == nil {
			s.m[p.lane] = make(map[string]bool)
		}
		if !s.m[p.lane][p.key] {
			s.count.Add(1)
		}
		s.m[p.lane][p.key] = true
	}
}

// reset forgets everything (after a rebalance or a rebuilt session, when
// the retry partitions may have moved).
func (s *parkedSet) reset() {
	s.m = make(map[string]map[string]bool)
	s.queues = make(map[string]*queue)
	s.count.Store(0)
}

// len returns the number of parked commands known.
func (s *parkedSet) len() int {
	n := 0
	for _, ks := range s.m {
		n += len(ks)
	}
	return n
}

type laneKeyPair struct{ lane, key string }
