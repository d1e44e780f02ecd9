package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

// webhook is one signed webhook body.
type webhook struct {
	body []byte
	sig  string
}

// webhookBody is a v1 payment_finished webhook of a session unique to i, so
// the connector's dedupe (SHA-256 of the body) does not hide work.
func webhookBody(run string, i int) []byte {
	return []byte(fmt.Sprintf(`{"type":"payment_finished","session":{"id":"ps_bench_%s_%d","status":"accepted",`+
		`"created_at":"2026-11-23T10:00:00.000000Z","updated_at":"2026-11-23T10:00:01.000000Z","payments":[`+
		`{"id":"pm_bench_%s_%d","status":"succeeded","amount_details":{"amount":120000,"currency":"rub"}}]}}`, run, i, run, i))
}

// signWebhooks signs n bodies with the service key on two goroutines
// (before the clock of the phase starts: the service signs, not the connector).
func (e *env) signWebhooks(n int) ([]webhook, error) {
	s := signing.NewRSASigner(e.service, signing.PKCS1v15)
	run := randomID()
	out := make([]webhook, n)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := g; i < n; i += 2 {
				b := webhookBody(run, i)
				sig, err := s.Sign(b)
				if err != nil {
					errs[g] = err
					return
				}
				out[i] = webhook{body: b, sig: sig}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// measureWebhooks posts the webhooks from o.webhookWorkers goroutines and
// times each answer.
func (e *env) measureWebhooks(ctx context.Context, o options) (Webhooks, error) {
	hooks, err := e.signWebhooks(o.webhooks)
	if err != nil {
		return Webhooks{}, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = o.webhookWorkers
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	prof, err := startProfile(o.profileDir, "webhooks")
	if err != nil {
		return Webhooks{}, err
	}
	var next, accepted atomic.Int64
	lat := make([]time.Duration, len(hooks))
	var wg sync.WaitGroup
	start := time.Now()
	for range o.webhookWorkers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(hooks) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				t0 := time.Now()
				if e.postWebhook(ctx, hc, hooks[i]) {
					accepted.Add(1)
				}
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	path := prof.stop()
	return Webhooks{Workers: o.webhookWorkers, Sent: len(hooks), Accepted: int(accepted.Load()), Seconds: round(secs, 3),
		PerSecond: round(float64(accepted.Load())/secs, 1), P50MS: ms(percentile(lat, 50)), P99MS: ms(percentile(lat, 99)),
		Profile: path}, ctx.Err()
}

func (e *env) postWebhook(ctx context.Context, hc *http.Client, w webhook) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.hookURL, bytes.NewReader(w.body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(paysim.HeaderSign, w.sig)
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
