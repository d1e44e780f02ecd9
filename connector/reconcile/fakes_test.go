package reconcile

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fakeAPI answers session/status and session/confirm from a table.
type fakeAPI struct {
	mu        sync.Mutex
	sessions  map[string]*payapi.Session
	statuses  map[string]int
	confirms  []string // session ids of the confirms
	onConfirm func(s *payapi.Session)
}

func (a *fakeAPI) Status(_ context.Context, id string, _ ...payapi.CallOption) (*payapi.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.statuses[id]++
	s, ok := a.sessions[id]
	if !ok {
		return nil, &payapi.Error{Code: "repository_record_not_found", Endpoint: "session/status"}
	}
	c := *s
	return &c, nil
}

func (a *fakeAPI) Confirm(_ context.Context, id string, opts ...payapi.CallOption) (*payapi.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.confirms = append(a.confirms, id)
	s := a.sessions[id]
	a.onConfirm(s)
	c := *s
	return &c, nil
}

func (a *fakeAPI) set(s *payapi.Session) {
	a.mu.Lock()
	a.sessions[s.ID] = s
	a.mu.Unlock()
}

func (a *fakeAPI) counts(id string) (statuses, confirms int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.confirms {
		if c == id {
			confirms++
		}
	}
	return a.statuses[id], confirms
}

type jsonEncoder struct{}

func (jsonEncoder) Encode(_ context.Context, _ string, rec codec.Record) ([]byte, error) {
	return json.Marshal(rec)
}

// newKafka starts an in-process Kafka with the sessions topic and returns
// its address and a producer client.
func newKafka(t *testing.T, topic string) ([]string, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c.ListenAddrs(), cl
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
