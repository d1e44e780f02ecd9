package pipeline

import (
	"slices"
	"sort"
	"strings"
)

// A session's parked commands out of order in the retry topic.
//
// A batch takes at most MaxPerSession of a lane's retry records (held.go),
// so a session with more parked commands still has the rest in the retry
// topic while the batch runs. When the batch parks again one it took (its
// call cut by the batch deadline, not due yet, the schema registry down),
// that one and those behind it in the batch go to the end of the retry
// topic: behind the rest, which must run after them. So from then on the
// parked set keeps the order of the lane's parked commands, a queue, until
// none is left: a retry record of the lane runs only once every command
// before it in the queue has, and the others met first in the retry topic
// are parked behind again, one more pass each without a call. A record the
// queue does not know yet stood ahead of the ones parked again in the retry
// topic, so it takes its place right after them (queue.at), before the
// commands parked fresh since.
//
// Only this instance's own commits change a queue, and a lane gets one in a
// batch that consumed the lane's retry partition: the keys it waits for
// come back to it, unless a rebalance moves the partition, and that
// rebuilds the parked set without queues (seedParked). Order across such a
// rebalance in the middle of a pass is best effort.

// queue is the order of a session lane's parked commands.
type queue struct {
	keys []string // idempotency keys, in the order their commands must run
	at   int      // where keys met later go: after keys[:at], the ones parked again
}

// order sorts retries, a lane's retry records in a batch, into the order
// their commands must run, and returns how many of them, from the first,
// may run: up to the first whose predecessor is not in the batch.
func (q *queue) order(retries []*inbound) (ready int) {
	pos := make(map[string]int, len(q.keys))
	for i, k := range q.keys {
		if _, dup := pos[k]; !dup {
			pos[k] = i
		}
	}
	unknown := 0
	for _, in := range retries {
		if _, ok := pos[in.key]; !ok {
			unknown++
		}
	}
	rank := make(map[*inbound]int, len(retries))
	met := 0
	for _, in := range retries {
		switch i, ok := pos[in.key]; {
		case !ok:
			rank[in] = q.at + met
			met++
		case i >= q.at:
			rank[in] = i + unknown
		default:
			rank[in] = i
		}
	}
	sort.SliceStable(retries, func(a, b int) bool { return rank[retries[a]] < rank[retries[b]] })
	next := 0
	for _, in := range retries {
		if rank[in] > next {
			break
		}
		if rank[in] == next { // a repeated key shares its rank
			next++
		}
		ready++
	}
	return ready
}

func (q *queue) insert(key string) {
	q.keys = slices.Insert(q.keys, q.at, key)
	q.at++
}

func (q *queue) remove(key string) {
	if i := slices.Index(q.keys, key); i >= 0 {
		q.keys = slices.Delete(q.keys, i, i+1)
		if i < q.at {
			q.at--
		}
	}
}

// reorder keeps the queues through a committed batch; apply calls it
// before it changes the set. A session lane gets a queue when the batch
// parked again a retry record of the lane while others of the lane stayed
// parked outside the batch. In a queue, a key consumed for good leaves, a
// key parked again keeps its place (one met for the first time takes the
// place at queue.at), and a key parked fresh joins the end. consumed and
// parked are in the order of the batch's lanes.
func (s *parkedSet) reorder(consumed, parked []laneKeyPair) {
	back := make(map[laneKeyPair]bool, len(consumed))
	for _, c := range consumed {
		back[c] = true
	}
	again := make(map[laneKeyPair]bool)
	for _, p := range parked {
		if back[p] {
			again[p] = true
		}
	}
	for _, lane := range sessionLanes(consumed, parked) {
		q := s.queues[lane]
		if q == nil {
			if q = s.newQueue(lane, consumed, parked, again); q != nil {
				s.queues[lane] = q
			}
			continue
		}
		for _, c := range consumed {
			switch {
			case c.lane != lane:
			case !again[c]:
				q.remove(c.key)
			case !slices.Contains(q.keys, c.key):
				q.insert(c.key)
			}
		}
		for _, p := range parked {
			if p.lane == lane && !back[p] && !slices.Contains(q.keys, p.key) {
				q.keys = append(q.keys, p.key)
			}
		}
		if len(q.keys) == 0 {
			delete(s.queues, lane)
		}
	}
}

// newQueue returns the queue a lane needs after a batch, or nil: the keys
// parked again, then those parked fresh, when some other key of the lane
// stayed parked outside the batch.
func (s *parkedSet) newQueue(lane string, consumed, parked []laneKeyPair, again map[laneKeyPair]bool) *queue {
	took := map[string]bool{}
	for _, c := range consumed {
		if c.lane == lane {
			took[c.key] = true
		}
	}
	q := &queue{}
	for _, p := range parked {
		if p.lane == lane && again[p] {
			q.keys = append(q.keys, p.key)
		}
	}
	if len(q.keys) == 0 || !s.hasOthers(lane, took) {
		return nil
	}
	q.at = len(q.keys)
	for _, p := range parked {
		if p.lane == lane && !again[p] {
			q.keys = append(q.keys, p.key)
		}
	}
	return q
}

// sessionLanes returns the session lanes of pairs, each once.
func sessionLanes(lists ...[]laneKeyPair) []string {
	var lanes []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, p := range l {
			if strings.HasPrefix(p.lane, "s:") && !seen[p.lane] {
				seen[p.lane] = true
				lanes = append(lanes, p.lane)
			}
		}
	}
	return lanes
}
