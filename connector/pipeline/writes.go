package pipeline

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/paysession/paysession/connector/topics"
)

// Topic health. A produce failure aborts the batch's transaction and its
// records are redelivered; that is right for a blip, but a topic that is
// gone, not writable, or refuses a record would make the pipeline call the
// API for the same commands again and again while writing nothing. So the
// pipeline counts consecutive aborts caused by one topic; at
// WriteFailureThreshold it stops: no more polls, no more API calls,
// /readyz fails naming the topic and the error, and the Kafka session is
// rebuilt (a recreated topic has a new topic id that only a new client
// learns) once the topic shows up again in the cluster's metadata. The first
// commit clears it. The final outcomes of the aborted batches are kept
// (replay.go), so a command is sent once across such an outage.
//
// A consumed topic that fetches fail on (deleted, not readable) is reported
// the same way while its fetch errors last.
//
// A transaction whose writes do not end is reported too: from the moment
// its outcomes are produced until its end (commit or abort) it may take
// overdue (the batch deadline); beyond that /readyz fails until it ends.
// That is a replica cut off from one broker (the leader of a partition it
// writes, or its transaction coordinator): no produce fails, the other
// brokers answer the readiness ping, and yet nothing commits until the
// transaction times out or the network heals (chaos scenario c6).

// writeHealth tracks the topics the pipeline cannot write or read. It is
// safe for concurrent use (readiness checks read it).
type writeHealth struct {
	threshold int

	mu      sync.Mutex
	topic   string // topic of the current failure streak
	err     error
	streak  int
	blocked bool
	reads   map[string]readProblem // consumed topics whose fetches fail

	overdue time.Duration // how long a transaction's writes may take; 0: unchecked
	writing time.Time     // when the current transaction's writes began; zero: none
}

type readProblem struct {
	err  error
	seen time.Time
}

// readProblemTTL is how long a fetch error of a consumed topic is reported
// after it was last seen.
const readProblemTTL = 15 * time.Second

// topicError is a failure to produce to one topic.
type topicError struct {
	Topic string
	Err   error
}

func (e *topicError) Error() string { return fmt.Sprintf("topic %s: %v", e.Topic, e.Err) }
func (e *topicError) Unwrap() error { return e.Err }

// failed counts an abort caused by err; it reports whether the pipeline must
// now stop calling the API until the topic is back.
func (h *writeHealth) failed(err error) bool {
	var te *topicError
	if !errors.As(err, &te) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if te.Topic != h.topic {
		h.topic, h.streak = te.Topic, 0
	}
	h.err = te.Err
	h.streak++
	if h.threshold > 0 && h.streak >= h.threshold {
		h.blocked = true
	}
	return h.blocked
}

// committed clears the failure streak: the pipeline writes again.
func (h *writeHealth) committed() {
	h.mu.Lock()
	h.topic, h.err, h.streak, h.blocked = "", nil, 0, false
	h.mu.Unlock()
}

// began notes that a transaction starts writing its outcomes at now.
func (h *writeHealth) began(now time.Time) {
	h.mu.Lock()
	h.writing = now
	h.mu.Unlock()
}

// ended notes that the transaction ended (committed, aborted or unknown).
func (h *writeHealth) ended() {
	h.mu.Lock()
	h.writing = time.Time{}
	h.mu.Unlock()
}

// blockedTopic returns the topic the pipeline waits for ("" when none).
func (h *writeHealth) blockedTopic() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.blocked {
		return ""
	}
	return h.topic
}

// readFailed notes a fetch error of a consumed topic.
func (h *writeHealth) readFailed(topic string, err error, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reads == nil {
		h.reads = map[string]readProblem{}
	}
	h.reads[topic] = readProblem{err: err, seen: now}
}

// check returns nil while every topic can be written and read, else an
// error naming each topic that cannot and why.
func (h *writeHealth) check(now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var errs []error
	// Readiness fails at the first abort caused by the topic itself (gone,
	// not authorized, refusing records), and after WriteFailureThreshold
	// aborts of any kind.
	if h.blocked || (h.streak > 0 && topics.IsTopicProblem(h.err)) {
		errs = append(errs, fmt.Errorf("topic %s: not writable (%d aborted transactions): %v", h.topic, h.streak, h.err))
	}
	if h.overdue > 0 && !h.writing.IsZero() && now.Sub(h.writing) > h.overdue {
		errs = append(errs, fmt.Errorf("transaction writing for %v (more than %v): not committed yet",
			now.Sub(h.writing).Round(time.Second), h.overdue))
	}
	for t, p := range h.reads {
		if now.Sub(p.seen) > readProblemTTL {
			delete(h.reads, t)
			continue
		}
		errs = append(errs, fmt.Errorf("topic %s: not readable: %v", t, p.err))
	}
	return errors.Join(errs...)
}
