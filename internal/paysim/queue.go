package paysim

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// queue runs the sandbox's background work: "processing" tasks that the
// spec describes as asynchronous (run after a short real-time delay, one at
// a time, in order) and timers on the sandbox clock (timeouts, webhook
// retries). It counts outstanding work so tests can await quiescence.
type queue struct {
	now       func() time.Time // sandbox clock
	realClock bool             // sandbox clock follows wall time: wake for timers

	mu     sync.Mutex
	tasks  itemHeap // due in wall time
	timers itemHeap // due in sandbox time
	seq    uint64
	busy   int
	idle   chan struct{} // closed while busy == 0
	wake   chan struct{}
}

type item struct {
	at  time.Time
	seq uint64
	fn  func()
}

type itemHeap []item

func (h itemHeap) Len() int { return len(h) }
func (h itemHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h itemHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *itemHeap) Push(x any)   { *h = append(*h, x.(item)) }
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

func newQueue(now func() time.Time, realClock bool) *queue {
	idle := make(chan struct{})
	close(idle)
	return &queue{now: now, realClock: realClock, idle: idle, wake: make(chan struct{}, 1)}
}

// after runs fn on the queue's goroutine after delay of wall time.
func (q *queue) after(delay time.Duration, fn func()) {
	q.mu.Lock()
	q.seq++
	heap.Push(&q.tasks, item{at: time.Now().Add(delay), seq: q.seq, fn: fn})
	q.addBusyLocked(1)
	q.mu.Unlock()
	q.poke()
}

// at runs fn once the sandbox clock reaches t.
func (q *queue) at(t time.Time, fn func()) {
	q.mu.Lock()
	q.seq++
	heap.Push(&q.timers, item{at: t, seq: q.seq, fn: fn})
	q.mu.Unlock()
	q.poke()
}

// hold marks outside work (a webhook attempt) as outstanding; release ends it.
func (q *queue) hold() {
	q.mu.Lock()
	q.addBusyLocked(1)
	q.mu.Unlock()
}

func (q *queue) release() {
	q.mu.Lock()
	q.addBusyLocked(-1)
	q.mu.Unlock()
}

func (q *queue) addBusyLocked(n int) {
	if n == 0 {
		return
	}
	if q.busy == 0 {
		q.idle = make(chan struct{})
	}
	q.busy += n
	if q.busy == 0 {
		close(q.idle)
	}
}

func (q *queue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// promote moves timers that are due on the sandbox clock into the task heap.
func (q *queue) promote() {
	now := q.now()
	q.mu.Lock()
	moved := false
	for len(q.timers) > 0 && !q.timers[0].at.After(now) {
		it := heap.Pop(&q.timers).(item)
		it.at = time.Time{} // run before anything delayed
		heap.Push(&q.tasks, it)
		q.addBusyLocked(1)
		moved = true
	}
	q.mu.Unlock()
	if moved {
		q.poke()
	}
}

// waitIdle returns when no task is queued or running and no webhook attempt
// is in flight, after firing the timers that are due.
func (q *queue) waitIdle(ctx context.Context) error {
	q.promote()
	for {
		q.mu.Lock()
		idle := q.idle
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-idle:
		}
		q.promote()
		q.mu.Lock()
		done := q.busy == 0
		q.mu.Unlock()
		if done {
			return nil
		}
	}
}

// clear drops every queued task and timer (admin reset).
func (q *queue) clear() {
	q.mu.Lock()
	q.addBusyLocked(-len(q.tasks))
	q.tasks = nil
	q.timers = nil
	q.mu.Unlock()
}

// run executes tasks until ctx ends.
func (q *queue) run(ctx context.Context) {
	for {
		q.promote()
		wait := q.step()
		if wait == 0 {
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-q.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// step runs one due task and returns 0, or returns how long to sleep.
func (q *queue) step() time.Duration {
	q.mu.Lock()
	wait := time.Hour
	if len(q.tasks) > 0 {
		if d := time.Until(q.tasks[0].at); d > 0 {
			wait = d
		} else {
			it := heap.Pop(&q.tasks).(item)
			q.mu.Unlock()
			it.fn()
			q.release()
			return 0
		}
	}
	if len(q.timers) > 0 {
		d := 250 * time.Millisecond // an injected clock may move on its own
		if q.realClock {
			d = max(q.timers[0].at.Sub(q.now()), time.Millisecond)
		}
		wait = min(wait, d)
	}
	q.mu.Unlock()
	return wait
}
