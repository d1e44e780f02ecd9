package webhook

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paysession/paysession/connector/publish"
	"github.com/paysession/paysession/integration/harness"
)

// TestPeriodicPublishersReachKafka publishes the sandbox's wallet balances
// and FPS banks to their topics.
func TestPeriodicPublishersReachKafka(t *testing.T) {
	g := newRig(t, rigOpts{})
	wallets, banks := harness.Topic(t, g.admin, 1), harness.Topic(t, g.admin, 1)
	p, err := publish.New(publish.Config{API: g.api, Producer: g.prod, Encoder: encoder(t),
		WalletInterval: time.Hour, BanksInterval: time.Hour, WalletTopic: wallets, BanksTopic: banks,
		Registerer: prometheus.NewRegistry(), Logger: testLogger(t), Now: g.simNow})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g.payout(t, cardOK, 10000) // opens the rub wallet if the sandbox opens them lazily
	g.idle(t)
	if err := p.PublishWalletBalances(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.PublishFPSBanks(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(g.readAll(t, wallets)); n == 0 {
		t.Fatal("no wallet balance published")
	}
	recs := g.readAll(t, banks)
	if len(recs) != 1 || string(recs[0].Key) != publish.BanksKey {
		t.Fatalf("fps banks records: %d", len(recs))
	}
}
