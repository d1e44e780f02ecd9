package ingress

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/signing"
)

// fakeProducer acknowledges, fails or holds records like a kgo.Client. The
// ingress calls only TryProduce (the embedded nil Producer panics on
// anything else).
type fakeProducer struct {
	outbound.Producer
	mu       sync.Mutex
	mode     string // "ok", "fail", "hold"
	acked    []*kgo.Record
	held     []func()
	produced int
}

func (p *fakeProducer) TryProduce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.produced++
	switch p.mode {
	case "fail":
		go promise(r, errors.New("broker unavailable"))
	case "hold":
		p.held = append(p.held, func() { p.ack(r, promise) })
	default:
		p.acked = append(p.acked, r)
		go promise(r, nil)
	}
}

func (p *fakeProducer) ack(r *kgo.Record, promise func(*kgo.Record, error)) {
	p.mu.Lock()
	p.acked = append(p.acked, r)
	p.mu.Unlock()
	promise(r, nil)
}

func (p *fakeProducer) setMode(m string) {
	p.mu.Lock()
	p.mode = m
	p.mu.Unlock()
}

// release acknowledges every held record.
func (p *fakeProducer) release() {
	p.mu.Lock()
	held := p.held
	p.held = nil
	p.mu.Unlock()
	for _, f := range held {
		f()
	}
}

func (p *fakeProducer) topics() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := map[string]int{}
	for _, r := range p.acked {
		n[r.Topic]++
	}
	return n
}

func (p *fakeProducer) last(topic string) *kgo.Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.acked) - 1; i >= 0; i-- {
		if p.acked[i].Topic == topic {
			return p.acked[i]
		}
	}
	return nil
}

// jsonEncoder stands in for the Avro encoder.
type jsonEncoder struct{}

func (jsonEncoder) Encode(_ context.Context, _ string, rec codec.Record) ([]byte, error) {
	return json.Marshal(rec)
}

var (
	keysOnce sync.Once
	keys     [3]*rsa.PrivateKey
)

// testKeys returns two service keys (rotation) and a forger's key.
func testKeys(t testing.TB) (current, previous, forger *rsa.PrivateKey) {
	t.Helper()
	keysOnce.Do(func() {
		for i := range keys {
			k, err := signing.GenerateKey(2048)
			if err != nil {
				panic(err)
			}
			keys[i] = k
		}
	})
	return keys[0], keys[1], keys[2]
}

// fakeAPI answers session/status like the service: a session is found
// only under its project (sessions: id → project, "" the default). With
// everywhere set, a session absent from sessions is found under any
// project (the fixture's default, for tests of other things).
type fakeAPI struct {
	mu         sync.Mutex
	sessions   map[string]string
	everywhere bool
	calls      int
	hold       chan struct{} // when set, a call waits for it to close (or its context)
	err        error         // when set, every call fails with it
}

func (a *fakeAPI) Status(ctx context.Context, id string, opts ...payapi.CallOption) (*payapi.Session, error) {
	a.mu.Lock()
	a.calls++
	hold, fail := a.hold, a.err
	project, ok := a.sessions[id]
	everywhere := a.everywhere
	a.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, &payapi.Error{Code: payapi.CodeTimeout, Endpoint: "session/status", Retryable: true, Err: ctx.Err()}
		}
	}
	if fail != nil {
		return nil, fail
	}
	if asked := payapi.ProjectOf(opts...); (ok && asked == project) || (!ok && everywhere) {
		return &payapi.Session{ID: id, Status: "in_progress"}, nil
	}
	return nil, &payapi.Error{Code: payapi.CodeRecordNotFound, Endpoint: "session/status", HTTPStatus: 400}
}

func (a *fakeAPI) callCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// fakeSessions is a session writer's local lookup: id → project ("" the
// default).
type fakeSessions map[string]string

func (s fakeSessions) SessionProject(id string) (*string, bool) {
	p, ok := s[id]
	if !ok || p == "" {
		return nil, ok
	}
	return &p, true
}
