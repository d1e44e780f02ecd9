package paysim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// BenchmarkServeInitPayout measures session/init/payout through the handler
// with signature verification and an idempotency key per request (webhooks
// off). Run with -cpu 2 to match the target machine.
func BenchmarkServeInitPayout(b *testing.B) {
	e := newEnv(b, func(c *Config) { c.Projects[0].WebhookURL = "" })
	raw, _ := json.Marshal(payoutBody("v1", CardSuccess, 100))
	sig, _ := e.sign.Sign(raw)
	h := e.srv.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodPost, "/api/v1/session/init/payout", bytes.NewReader(raw))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(HeaderProject, "dev")
			req.Header.Set(HeaderSign, sig)
			req.Header.Set(HeaderIdempotency, fmt.Sprintf("bench-%d", n.Add(1)))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				body, _ := io.ReadAll(w.Body)
				b.Fatalf("status %d: %s", w.Code, body)
			}
		}
	})
}
