package paysim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Webhook types of the spec.
const (
	EventActionRequired  = "action_required"
	EventReadyToConfirm  = "ready_to_confirm"
	EventReadyToCapture  = "ready_to_capture"
	EventPaymentFinished = "payment_finished"
	EventPaymentRefunded = "payment_refunded"
)

// WebhookDelivery is one webhook and its attempts (GET /admin/webhooks).
type WebhookDelivery struct {
	ID        int64  `json:"id"`
	Project   string `json:"project"`
	SessionID string `json:"session_id"`
	Type      string `json:"type"`
	URL       string `json:"url"`
	// State: pending (attempt queued or scheduled), delivered, failed
	// (stopped 30 minutes after the first attempt).
	State         string           `json:"state"`
	Attempts      []WebhookAttempt `json:"attempts"`
	NextAttemptAt *time.Time       `json:"next_attempt_at,omitempty"`
	Body          json.RawMessage  `json:"body"`
}

// WebhookAttempt is one POST of a webhook, at sandbox time.
type WebhookAttempt struct {
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code,omitempty"`
	Error      string    `json:"error,omitempty"`
}

type webhooks struct {
	s      *Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	seq    int64
	log    []*WebhookDelivery
	lanes  map[string][]*WebhookDelivery // per session: delivered in order
	body   map[int64]string              // delivery id -> signature
	closed bool
}

func newWebhooks(s *Server) *webhooks {
	ctx, cancel := context.WithCancel(context.Background())
	return &webhooks{s: s, ctx: ctx, cancel: cancel, lanes: map[string][]*WebhookDelivery{}, body: map[int64]string{}}
}

func (h *webhooks) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

func (h *webhooks) reset() {
	h.mu.Lock()
	h.log = nil
	h.mu.Unlock()
}

// emit signs a webhook of sess's current state and queues it. Callers hold s.mu.
func (s *Server) emit(sess *session, typ string) {
	p := s.projects[sess.Project]
	if p == nil || p.WebhookURL == "" {
		return
	}
	body, err := json.Marshal(map[string]any{"type": typ, "session": renderSession(sess, sess.Version, true, sess.BaseURL)})
	if err != nil {
		s.log.Error("paysim webhook encode", slog.Any("error", err))
		return
	}
	sig, err := s.signer.Sign(body)
	if err != nil {
		s.log.Error("paysim webhook sign", slog.Any("error", err))
		return
	}
	h := s.hooks
	h.mu.Lock()
	h.seq++
	d := &WebhookDelivery{ID: h.seq, Project: p.ID, SessionID: sess.ID, Type: typ, URL: p.WebhookURL, State: "pending", Body: body}
	h.body[d.ID] = sig
	h.log = append(h.log, d)
	if len(h.log) > s.cfg.MaxLogEntries {
		h.log = append([]*WebhookDelivery(nil), h.log[len(h.log)-s.cfg.MaxLogEntries/2:]...)
	}
	h.mu.Unlock()
	h.enqueue(d)
}

// enqueue puts d in its session's lane and starts the lane if idle.
func (h *webhooks) enqueue(d *WebhookDelivery) {
	h.s.q.hold()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.s.q.release()
		return
	}
	lane := h.lanes[d.SessionID]
	h.lanes[d.SessionID] = append(lane, d)
	start := len(lane) == 0
	if start {
		h.wg.Add(1)
	}
	h.mu.Unlock()
	if start {
		go h.drain(d.SessionID)
	}
}

func (h *webhooks) drain(sessionID string) {
	defer h.wg.Done()
	for {
		h.mu.Lock()
		lane := h.lanes[sessionID]
		if len(lane) == 0 {
			delete(h.lanes, sessionID)
			h.mu.Unlock()
			return
		}
		d := lane[0]
		h.mu.Unlock()
		h.attempt(d)
		h.mu.Lock()
		h.lanes[sessionID] = h.lanes[sessionID][1:]
		h.mu.Unlock()
		h.s.q.release()
	}
}

// attempt POSTs d once and schedules the next attempt on failure: pauses
// start at WebhookRetryFirst and double, never over 15 minutes; the last
// attempt is 30 minutes after the first.
func (h *webhooks) attempt(d *WebhookDelivery) {
	s := h.s
	now := s.Now()
	a := WebhookAttempt{At: now}
	if s.dice.chance(s.Faults().WebhookRefuse) {
		a.Error = "refused (fault knob webhook_refuse)"
	} else {
		a.StatusCode, a.Error = h.post(d)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	d.Attempts = append(d.Attempts, a)
	d.NextAttemptAt = nil
	if a.Error == "" && a.StatusCode >= 200 && a.StatusCode < 300 {
		d.State = "delivered"
		delete(h.body, d.ID)
		return
	}
	pause := s.cfg.WebhookRetryFirst << (len(d.Attempts) - 1)
	if pause > WebhookMaxInterval || pause <= 0 {
		pause = WebhookMaxInterval
	}
	// The last attempt lands exactly WebhookGiveUp after the first: with the
	// defaults attempts run at 0, 0.5, 1.5, 3.5, 7.5, 15.5 and 30 minutes.
	next, end := now.Add(pause), d.Attempts[0].At.Add(WebhookGiveUp)
	if next.After(end) {
		next = end
	}
	if !next.After(now) {
		d.State = "failed"
		delete(h.body, d.ID)
		s.log.Warn("paysim webhook given up", slog.String("session_id", d.SessionID), slog.String("type", d.Type))
		return
	}
	d.NextAttemptAt = &next
	s.q.at(next, func() { h.enqueue(d) })
}

func (h *webhooks) post(d *WebhookDelivery) (int, string) {
	h.mu.Lock()
	sig := h.body[d.ID]
	h.mu.Unlock()
	req, err := http.NewRequestWithContext(h.ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return 0, fmt.Sprintf("build request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderSign, sig)
	resp, err := h.s.cfg.WebhookClient.Do(req)
	if err != nil {
		return 0, "no answer: " + err.Error()
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, "answered " + resp.Status
	}
	return resp.StatusCode, ""
}

// Webhooks returns the delivery log, oldest first.
func (s *Server) Webhooks() []WebhookDelivery {
	h := s.hooks
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]WebhookDelivery, len(h.log))
	for i, d := range h.log {
		out[i] = *d
		out[i].Attempts = append([]WebhookAttempt(nil), d.Attempts...)
	}
	return out
}
