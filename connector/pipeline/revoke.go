package pipeline

import (
	"context"
	"sync"
)

// revokes is the running batch as a rebalance sees it: the cancel of its
// calls, and whether a revoke or loss hit it. The Run goroutine sets the
// cancel (batchContext) and takes the verdict when the batch's
// transaction begins (done); the client's rebalance callback trips it
// (onRevoked).
type revokes struct {
	mu      sync.Mutex
	cancel  context.CancelFunc // cancels the running batch
	revoked bool               // a revoke or loss hit the running batch
}

// running records the cancel of the batch that now runs.
func (g *revokes) running(cancel context.CancelFunc) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cancel = cancel
}

// revoke marks the running batch revoked and stops its calls.
func (g *revokes) revoke() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.revoked = true
	if g.cancel != nil {
		g.cancel()
	}
}

// pending reports whether a revoke hit the running batch and is not yet
// answered by an abort.
func (g *revokes) pending() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.revoked
}

// done forgets the running batch's cancel and reports whether a revoke hit
// it (and forgets the revoke too: the batch's transaction answers it).
func (g *revokes) done() (revoked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	revoked = g.revoked
	g.cancel, g.revoked = nil, false
	return revoked
}
