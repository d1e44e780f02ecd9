package publish

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
)

type fakeAPI struct{ err error }

func (a fakeAPI) WalletBalance(_ context.Context, at time.Time, _ ...payapi.CallOption) ([]payapi.Wallet, error) {
	return []payapi.Wallet{{ID: "w1", Amount: &payapi.Amount{Value: 500000, Currency: "rub"}}, {ID: "w2"}}, a.err
}

func (a fakeAPI) FPSBanks(context.Context, ...payapi.CallOption) ([]payapi.FPSBank, error) {
	return []payapi.FPSBank{{ID: "100000000111", EngName: "Bank", RuName: "Банк"}}, a.err
}

// fakeProducer records what the publishers produce; they call only
// ProduceSync (the embedded nil Producer panics on anything else).
type fakeProducer struct {
	outbound.Producer
	mu   sync.Mutex
	recs []*kgo.Record
}

func (p *fakeProducer) ProduceSync(_ context.Context, rs ...*kgo.Record) kgo.ProduceResults {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.recs = append(p.recs, rs...)
	var out kgo.ProduceResults
	for _, r := range rs {
		out = append(out, kgo.ProduceResult{Record: r})
	}
	return out
}

func (p *fakeProducer) count() int { p.mu.Lock(); defer p.mu.Unlock(); return len(p.recs) }

type jsonEncoder struct{}

func (jsonEncoder) Encode(_ context.Context, _ string, rec codec.Record) ([]byte, error) {
	return json.Marshal(rec)
}

var now = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func newPublishers(t *testing.T, api API, prod outbound.Producer, wallet, banks time.Duration) *Publishers {
	t.Helper()
	p, err := New(Config{API: api, Producer: prod, Encoder: jsonEncoder{}, WalletInterval: wallet, BanksInterval: banks,
		Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPublishRecords(t *testing.T) {
	prod := &fakeProducer{}
	p := newPublishers(t, fakeAPI{}, prod, time.Hour, time.Hour)
	if err := p.PublishWalletBalances(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.PublishFPSBanks(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		i     int
		topic string
		key   string
		want  string
	}{
		{0, "payments.wallet-balances", "w1", `"amount":500000,"currency":"rub"`},
		{1, "payments.wallet-balances", "w2", `"amount":0`},
		{2, "payments.fps-banks", BanksKey, `"eng_name":"Bank"`},
	}
	for _, tc := range tests {
		r := prod.recs[tc.i]
		if r.Topic != tc.topic || string(r.Key) != tc.key || !strings.Contains(string(r.Value), tc.want) {
			t.Errorf("record %d = %s %s %s", tc.i, r.Topic, r.Key, r.Value)
		}
	}
}

func TestRunPublishesAtOnceAndSurvivesErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		api  fakeAPI
		want int
	}{{"ok", fakeAPI{}, 3}, {"api down", fakeAPI{err: errors.New("down")}, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			prod := &fakeProducer{}
			p := newPublishers(t, tc.api, prod, time.Hour, time.Hour)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() { done <- p.Run(ctx) }()
			deadline := time.Now().Add(5 * time.Second)
			for tc.want > 0 && prod.count() < tc.want && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if prod.count() != tc.want {
				t.Fatalf("published %d, want %d", prod.count(), tc.want)
			}
		})
	}
}

func TestOffByDefault(t *testing.T) {
	p, err := New(Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("off publishers need no API: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	err = Config{WalletInterval: time.Minute, BanksInterval: -1}.Validate()
	for _, f := range []string{"API", "Producer", "Encoder", "Logger", "BanksInterval"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("error does not name %s: %v", f, err)
		}
	}
}
