package publish

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/outbound"
)

// limits is a limit per topic.
type limits map[string]int

func (l limits) MaxMessageBytes(topic string) int { return l[topic] }

// TestRecordTooLargeForItsTopicIsNotPublished: a bank list larger than its
// topic accepts is not produced (counted, logged by the Sizer), instead of
// a produce the topic refuses on every run; the wallet balances, which
// fit theirs, are.
func TestRecordTooLargeForItsTopicIsNotPublished(t *testing.T) {
	sizer, err := outbound.NewSizer(limits{"payments.fps-banks": 200, "payments.wallet-balances": 1 << 20}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	prod := &fakeProducer{}
	p, err := New(Config{API: fakeAPI{}, Producer: prod, Encoder: jsonEncoder{}, Sizer: sizer, WalletInterval: time.Hour,
		BanksInterval: time.Hour, Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PublishFPSBanks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.PublishWalletBalances(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, r := range prod.recs {
		if r.Topic == "payments.fps-banks" {
			t.Errorf("a bank list of %d batch bytes was produced to a topic of 200", outbound.RecordBatchBytes(r))
		}
	}
	if prod.count() != 2 {
		t.Errorf("%d records produced, want the 2 wallet balances", prod.count())
	}
}
