package connector

import (
	"log/slog"
	"os"
	"runtime"
	"sync"

	"github.com/paysession/paysession/internal/signing"
)

// One processor more than the cores, kept for network I/O.
//
// Signing is nearly all of the connector's CPU, and while signatures fill
// every processor Go's scheduler hears of finished network I/O only every
// 10 ms (signing.Gate). So the process runs one processor more than the
// runtime's default (the cores, or the container's CPU limit), and at most
// the default number of signatures run at once: the extra processor is free
// whenever a reply arrives, and otherwise idle. Setting GOMAXPROCS turns
// this off: the runtime keeps exactly that many processors and signatures
// may take them all, as before the gate.
//
// GOMAXPROCS is the process's, so the choice is made once per process and
// its gate is shared by every connector in it (the tests build many).
var (
	processorsOnce sync.Once
	processorsGate *signing.Gate
)

// signingGate applies the split once and returns the process's gate.
func signingGate(log *slog.Logger) *signing.Gate {
	processorsOnce.Do(func() {
		current := runtime.GOMAXPROCS(0)
		procs, signers := splitProcessors(os.Getenv("GOMAXPROCS"), current)
		if procs != current {
			runtime.GOMAXPROCS(procs)
		}
		processorsGate = signing.NewGate(signers)
		log.Info("processors", slog.Int("gomaxprocs", procs), slog.Int("signing", signers))
	})
	return processorsGate
}

// splitProcessors returns how many processors the runtime gets and how many
// signatures may run at once, from the GOMAXPROCS variable and the runtime's
// current count.
func splitProcessors(env string, current int) (procs, signers int) {
	if env != "" {
		return current, current
	}
	return current + 1, current
}
