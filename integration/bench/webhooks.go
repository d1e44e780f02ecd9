package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

// webhook is one signed webhook body.
type webhook struct {
	body []byte
	sig  string
}

// webhookBody is a v1 payment_finished webhook of session id, updated at
// at, unique to its session so the connector's dedupe (by event id) does
// not hide work.
func webhookBody(id string, at time.Time) []byte {
	return []byte(fmt.Sprintf(`{"type":"payment_finished","session":{"id":%q,"status":"accepted",`+
		`"created_at":%q,"updated_at":%q,"payments":[`+
		`{"id":"pm_%s","status":"succeeded","amount_details":{"amount":120000,"currency":"rub"}}]}}`,
		id, at.Add(-time.Second).Format(time.RFC3339Nano), at.Format(time.RFC3339Nano), strings.TrimPrefix(id, "ps_")))
}

// signWebhooks signs a webhook of each session with the service key on
// two goroutines (before the clock of the phase starts: the service signs,
// not the connector).
func (e *env) signWebhooks(ids []string, at time.Time) ([]webhook, error) {
	s := signing.NewRSASigner(e.service, signing.PKCS1v15)
	n := len(ids)
	out := make([]webhook, n)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := g; i < n; i += 2 {
				b := webhookBody(ids[i], at)
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

// holdSessions makes the bench's sessions ones the connector holds, as its
// commands' answers would: a session state of each (source api_response)
// on the session-updates topic, keyed by session id, then it waits until
// the session writer holds them all. The connector publishes a webhook
// only for a session its writer holds or session/status confirms
// (connector/ingress binding.go): the phase measures the publish path,
// not session/status of sessions the sandbox never made.
func (e *env) holdSessions(ctx context.Context, ids []string, at time.Time) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers...), kgo.DefaultProduceTopic(e.cfg.Topics.SessionUpdates))
	if err != nil {
		return err
	}
	defer cl.Close()
	before := gaugeValue(e.conn.Registry, "paysession_session_writer_sessions")
	recs := make([]*kgo.Record, 0, len(ids))
	for _, id := range ids {
		st := sessionstate.FromAPI(&payapi.Session{ID: id, Status: "in_progress", CreatedAt: at, UpdatedAt: at},
			string(codec.SourceAPIResponse), at, 1)
		v, err := codec.EncodeSingleObject(st)
		if err != nil {
			return err
		}
		recs = append(recs, &kgo.Record{Key: []byte(id), Value: v})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("session states of the webhook phase: %w", err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for gaugeValue(e.conn.Registry, "paysession_session_writer_sessions") < before+float64(len(ids)) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return errors.New("the session writer did not hold the webhook phase's sessions within 2m")
		}
		time.Sleep(50 * time.Millisecond) // the writer's commit interval is 100 ms
	}
	return nil
}

// measureWebhooks posts the webhooks from o.webhookWorkers goroutines and
// times each answer.
func (e *env) measureWebhooks(ctx context.Context, o options) (Webhooks, error) {
	run, at := randomID(), time.Now().UTC().Truncate(time.Microsecond)
	ids := make([]string, o.webhooks)
	for i := range ids {
		ids[i] = fmt.Sprintf("ps_bench_%s_%d", run, i)
	}
	if err := e.holdSessions(ctx, ids, at.Add(-time.Second)); err != nil {
		return Webhooks{}, err
	}
	hooks, err := e.signWebhooks(ids, at)
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
