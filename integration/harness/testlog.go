package harness

import (
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"

	"github.com/paysession/paysession/internal/logging"
)

// FailureLogTail bounds the log a failing test prints.
const FailureLogTail = 256 << 10

// FailureLog returns the log writer of a test's parts (connector, sandbox):
// os.Stderr when the environment variable watch is set, to follow a run;
// otherwise one buffer per test that keeps the last FailureLogTail bytes and
// is written to the test's output only if the test fails, so that a failure
// seen once, in a CI run, can be read. Call it before starting the parts
// that log: its cleanup then runs after theirs, when they have stopped.
func FailureLog(t testing.TB, watch string) io.Writer {
	if os.Getenv(watch) != "" {
		return os.Stderr
	}
	if w, ok := failureLogs.Load(t); ok {
		return w.(*tailBuffer)
	}
	w := &tailBuffer{max: FailureLogTail}
	failureLogs.Store(t, w)
	t.Cleanup(func() {
		failureLogs.Delete(t)
		if t.Failed() {
			t.Logf("log of the test's parts (its last %d bytes at most; %s=1 prints it as it runs):\n%s", FailureLogTail, watch, w)
		}
	})
	return w
}

// Logger is a text logger on FailureLog at info level, redacting as the
// connector's own logger does: what a failing test prints lands in CI
// output, where no card number may go either.
func Logger(t testing.TB, watch string) *slog.Logger {
	return logging.New(FailureLog(t, watch), "info", "text")
}

var failureLogs sync.Map // testing.TB → *tailBuffer

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// String returns the last max bytes written.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf[max(0, len(b.buf)-b.max):])
}
