package signing

import (
	"fmt"
	"log/slog"
)

// Gate bounds how many signatures run at once, across every Signer it
// limits.
//
// An RSA-2048 signature is 0.3–0.8 ms of pure CPU, and a batch of commands
// starts one goroutine per call, so under load far more signatures are
// runnable than there are processors. Go's scheduler looks for finished
// network I/O only when a processor runs out of runnable goroutines, or
// every 10 ms from its monitor thread: while signatures fill every
// processor, a reply from the broker or the API waits in the kernel until
// the queue of signatures drains. Measured in the bench at 850 commands/s
// on 2 cores, goroutine scheduling latency had a p99 of 6.3 ms and a p99.9
// of 12.6 ms, and each of a transaction's three sequential round trips to
// end it (TxnOffsetCommit, Heartbeat, EndTxn) paid it. A gate with fewer
// slots than processors leaves a processor to the goroutines that move
// replies along; the signatures behind the gate wait blocked, not
// runnable (integration/bench/RESULTS-archive.md, session 11).
type Gate struct {
	slots chan struct{}
}

// NewGate returns a gate that lets n signatures (at least one) run at once.
func NewGate(n int) *Gate {
	return &Gate{slots: make(chan struct{}, max(n, 1))}
}

// Slots returns how many signatures g lets run at once.
func (g *Gate) Slots() int { return cap(g.slots) }

// Limit returns a Signer that signs with s once g has a free slot.
func (g *Gate) Limit(s Signer) Signer {
	return gatedSigner{s: s, g: g}
}

type gatedSigner struct {
	s Signer
	g *Gate
}

func (s gatedSigner) Sign(body []byte) (string, error) {
	s.g.slots <- struct{}{}
	defer func() { <-s.g.slots }()
	return s.s.Sign(body)
}

// String names the signer behind the gate, which never prints its key.
func (s gatedSigner) String() string {
	if n, ok := s.s.(fmt.Stringer); ok {
		return n.String()
	}
	return "signer"
}

// LogValue logs what String prints.
func (s gatedSigner) LogValue() slog.Value { return slog.StringValue(s.String()) }
