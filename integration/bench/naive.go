package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/internal/signing"
)

// naiveLoop is the latency floor the paced phase compares the connector
// with: the simplest at-least-once franz-go consumer. Per poll it calls the
// API for every record at once (the same signed init_payout the connector
// sends, on the same signing engine), produces one result per record
// (acks=all, no transaction), waits for the acknowledgements and commits
// the polled offsets. It has none of the connector's guarantees: a crash
// between produce and commit repeats results.
type naiveLoop struct {
	cl      *kgo.Client
	api     *payapi.Client
	results string // topic of its results, keyed by the command's key
	cancel  context.CancelFunc
	stopped chan struct{} // closed when run returned
	err     error         // what run returned, valid after stopped
}

// startNaiveLoop consumes commands (group group) and writes results, on
// the broker and sandbox of e, until stop.
func (e *env) startNaiveLoop(ctx context.Context, commands, results, group string) (*naiveLoop, error) {
	key, err := signing.LoadPrivateKey(filepath.Join(e.dir, paysim.DevPartnerPrivate))
	if err != nil {
		return nil, err
	}
	api, err := payapi.New(payapi.Config{BaseURL: e.sandbox.url, Project: "bench", Signer: signing.NewRSASigner(key, signing.PKCS1v15),
		HTTPClient: &http.Client{Timeout: 15 * time.Second}})
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(commands),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(50*time.Millisecond),
		kgo.ProducerLinger(0), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	n := &naiveLoop{cl: cl, api: api, results: results, cancel: cancel, stopped: make(chan struct{})}
	go pprof.Do(ctx, pprof.Labels("part", "naive-loop"), func(ctx context.Context) {
		defer close(n.stopped)
		n.err = n.run(ctx)
	})
	return n, nil
}

// run is the loop: poll → call → produce → commit.
func (n *naiveLoop) run(ctx context.Context) error {
	for {
		fs := n.cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err := fs.Err0(); err != nil {
			return fmt.Errorf("naive loop: poll: %w", err)
		}
		recs := fs.Records()
		var wg sync.WaitGroup
		errs := make([]error, len(recs))
		for i, r := range recs {
			wg.Go(func() { errs[i] = n.handle(ctx, r) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		if err := n.cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
			return fmt.Errorf("naive loop: commit: %w", err)
		}
	}
}

// naiveCommand is the part of the bench's init_payout command the naive
// loop reads.
type naiveCommand struct {
	Instrument struct {
		Card struct {
			BankCard struct {
				Number sensitive.PAN `json:"number"`
				Month  string        `json:"expiration_month"`
				Year   string        `json:"expiration_year"`
			} `json:"bank_card"`
		} `json:"card"`
	} `json:"instrument"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Customer struct {
		Reference string `json:"reference"`
	} `json:"customer"`
}

// handle calls the API for one command and produces its result once the
// broker acknowledged it.
func (n *naiveLoop) handle(ctx context.Context, r *kgo.Record) error {
	var c naiveCommand
	if err := json.Unmarshal(r.Value, &c); err != nil {
		return fmt.Errorf("naive loop: decode %s: %w", r.Key, err)
	}
	card := c.Instrument.Card.BankCard
	s, err := n.api.InitPayout(ctx, payapi.InitPayoutRequest{Instrument: payapi.CardInstrument(card.Number, card.Month, card.Year, ""),
		Amount: &payapi.Amount{Value: c.Amount, Currency: c.Currency}, Customer: &payapi.Customer{Reference: c.Customer.Reference}},
		payapi.WithIdempotencyKey(string(r.Key)))
	if err != nil {
		return fmt.Errorf("naive loop: call %s: %w", r.Key, err)
	}
	value, _ := json.Marshal(map[string]string{"session_id": s.ID, "status": s.Status})
	res := n.cl.ProduceSync(ctx, &kgo.Record{Topic: n.results, Key: r.Key, Value: value})
	if err := res.FirstErr(); err != nil {
		return fmt.Errorf("naive loop: produce %s: %w", r.Key, err)
	}
	return nil
}

// stop ends the loop and closes its client; it returns the loop's error.
func (n *naiveLoop) stop() error {
	n.cancel()
	<-n.stopped
	n.cl.Close()
	return n.err
}
