package paysim

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Admin endpoints (no signature; test and demo control):
//
//	POST /admin/clock/advance {"seconds":N}      move sandbox time, fire due timers
//	GET  /admin/clock                            {"now": ...}
//	GET  /admin/ledger[?session_id=]             {"entries":[LedgerEntry...]}
//	GET  /admin/executions[?session_id=]         {"executions":[...],"max_in_flight":N}
//	GET  /admin/webhooks                         {"deliveries":[WebhookDelivery...]}
//	GET  /admin/faults, POST /admin/faults       {latency_ms, latency_jitter_ms, latency_distribution, error_rate, drop_rate, webhook_refuse}
//	POST /admin/chargeback {"session_id", "amount"?}  {"refund_id"}
//	POST /admin/3ds {"operation_id", "result":"success"|"fail"}
//	POST /admin/wait-idle[?timeout_ms=]          returns when background work is done
//	GET  /admin/wallets?project=                 {"wallets":[...]}
//	POST /admin/reset                            forget everything but the clock
//	GET  /healthz
//
// Customer-facing pages: GET|POST /sandbox/3ds?operation_id=&result=success|fail,
// POST /sandbox/widget?public_token= (one use of a public token).
func (s *Server) adminRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /admin/clock/advance", s.adminAdvance)
	mux.HandleFunc("GET /admin/clock", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"now": formatTime(s.Now())})
	})
	mux.HandleFunc("GET /admin/ledger", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"entries": nonNil(s.Ledger(r.URL.Query().Get("session_id")))})
	})
	mux.HandleFunc("GET /admin/executions", func(w http.ResponseWriter, r *http.Request) {
		ex, peak := s.Executions(r.URL.Query().Get("session_id"))
		writeJSON(w, map[string]any{"executions": nonNil(ex), "max_in_flight": peak})
	})
	mux.HandleFunc("GET /admin/webhooks", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"deliveries": nonNil(s.Webhooks())})
	})
	mux.HandleFunc("GET /admin/faults", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, s.Faults()) })
	mux.HandleFunc("POST /admin/faults", s.adminFaults)
	mux.HandleFunc("POST /admin/chargeback", s.adminChargeback)
	mux.HandleFunc("POST /admin/3ds", s.admin3DS)
	mux.HandleFunc("POST /admin/wait-idle", s.adminWaitIdle)
	mux.HandleFunc("GET /admin/wallets", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"wallets": nonNil(s.Wallets(r.URL.Query().Get("project")))})
	})
	mux.HandleFunc("POST /admin/reset", func(w http.ResponseWriter, r *http.Request) {
		s.Reset()
		writeJSON(w, map[string]any{})
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]any{}) })
	mux.HandleFunc("/sandbox/3ds", s.serve3DS)
	mux.HandleFunc("POST /sandbox/widget", s.serveWidget)
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

func writeJSON(w http.ResponseWriter, v any) {
	m, ok := v.(map[string]any)
	if ok {
		m["status"] = "ok"
	}
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, err)
		return
	}
	writeRaw(w, http.StatusOK, b)
}

func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(v); err != nil {
		writeError(w, invalid("body", "invalid_json"))
		return false
	}
	return true
}

func (s *Server) adminAdvance(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Seconds float64 `json:"seconds"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if req.Seconds < 0 {
		writeError(w, invalid("seconds", "positive"))
		return
	}
	s.Advance(time.Duration(req.Seconds * float64(time.Second)))
	writeJSON(w, map[string]any{"now": formatTime(s.Now())})
}

func (s *Server) adminFaults(w http.ResponseWriter, r *http.Request) {
	var f Faults
	if !readJSON(w, r, &f) {
		return
	}
	if err := s.SetFaults(f); err != nil {
		writeError(w, invalid("faults", "invalid"))
		return
	}
	writeJSON(w, s.Faults())
}

func (s *Server) adminChargeback(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SessionID string `json:"session_id"`
		Amount    int64  `json:"amount"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	id, err := s.Chargeback(req.SessionID, req.Amount)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, map[string]any{"refund_id": id})
}

func (s *Server) admin3DS(w http.ResponseWriter, r *http.Request) {
	var req struct {
		OperationID string `json:"operation_id"`
		Result      string `json:"result"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if err := s.Complete3DS(req.OperationID, req.Result != "fail"); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, map[string]any{})
}

func (s *Server) adminWaitIdle(w http.ResponseWriter, r *http.Request) {
	timeout := 10 * time.Second
	if v := r.URL.Query().Get("timeout_ms"); v != "" {
		if d, err := time.ParseDuration(v + "ms"); err == nil {
			timeout = d
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if err := s.WaitIdle(ctx); err != nil {
		writeError(w, &apiError{HTTP: http.StatusGatewayTimeout, Code: "timeout", Description: "wait_idle.timeout"})
		return
	}
	writeJSON(w, map[string]any{})
}
