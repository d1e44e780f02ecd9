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
