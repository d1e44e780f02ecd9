package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/paysession/paysession/internal/kafka"
)

// TestRunWaitsForBrokers: a session cannot start while no broker answers
// (a broker restart; the fault suite's scenario 2 saw `connector run` exit
// with "init producer id: ... connection refused" one second after an
// unknown transaction end). Run keeps trying instead of returning, and
// works once a broker listens on the address.
func TestRunWaitsForBrokers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there until the cluster starts below
	e := &kfakeEnv{seeds: []string{fmt.Sprintf("127.0.0.1:%d", port)}, topics: DefaultTopics(), reg: prometheus.NewRegistry()}
	logs := &logWatch{want: "kafka session could not start", seen: make(chan struct{})}
	p := e.pipeline(t, &fakeAPI{}, func(c *Config) { c.Logger = slog.New(logs) })
	stop := e.run(t, p)
	select {
	case <-logs.seen:
	case <-time.After(30 * time.Second):
		t.Fatalf("no retried session start logged within 30s; Run returned %v", stop())
	}
	if err := p.GroupJoined(context.Background()); err == nil {
		t.Fatal("GroupJoined while no broker answers = nil; want an error (not ready)")
	}
	all := e.topics.All()
	c, err := kfake.NewCluster(kfake.Ports(port), kfake.SeedTopics(2, all...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	e.cluster = c
	e.produce(t, captureRecord(e.topics, "key-0001", "ps_1"))
	got := e.results(t, 1, 60*time.Second)
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v; want nil after riding out the missing broker", err)
	}
	if n := len(got["key-0001"]); n != 1 {
		t.Errorf("key-0001: %d results, want 1", n)
	}
}

// TestRunStopsOnFinalKafkaError: a Kafka error that retrying cannot fix
// (here the transactional id is not authorized) still stops Run with it.
func TestRunStopsOnFinalKafkaError(t *testing.T) {
	e := newKfakeEnv(t)
	e.cluster.ControlKey(int16(kmsg.InitProducerID), func(req kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		resp := req.(*kmsg.InitProducerIDRequest).ResponseKind().(*kmsg.InitProducerIDResponse)
		resp.ErrorCode = kerr.TransactionalIDAuthorizationFailed.Code
		return resp, nil, true
	})
	p := e.pipeline(t, &fakeAPI{}, nil)
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { done <- p.Run(ctx) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), kerr.TransactionalIDAuthorizationFailed.Message) {
			t.Fatalf("Run = %v; want the authorization failure", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run still running 30s after a final InitProducerID error")
	}
}

func TestSessionRetriable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("init producer id: %w", &net.OpError{Op: "dial", Err: fmt.Errorf("connection refused")}), true},
		{fmt.Errorf("init producer id: %w", context.DeadlineExceeded), true},
		{fmt.Errorf("init producer id: %w", kerr.CoordinatorNotAvailable), true},
		{fmt.Errorf("init producer id: %w", kerr.TransactionalIDAuthorizationFailed), false},
		{fmt.Errorf("init producer id: %w", kerr.InvalidTransactionTimeout), false},
		{fmt.Errorf("kafka session: %w: %w", kafka.ErrOptions, kgo.ErrClientClosed), false},
	} {
		if got := sessionRetriable(c.err); got != c.want {
			t.Errorf("sessionRetriable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// logWatch is a slog handler that closes seen at the first record whose
// message contains want.
type logWatch struct {
	want string
	seen chan struct{}
	once sync.Once
}

func (w *logWatch) Enabled(context.Context, slog.Level) bool { return true }

func (w *logWatch) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return nil
}

func (w *logWatch) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *logWatch) WithGroup(string) slog.Handler      { return w }
