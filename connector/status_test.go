package connector

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/connector/sessionwriter"
)

// getStatus serves GET /status of src through the ops handler and
// decodes the document as generic JSON.
func getStatus(t *testing.T, src StatusSources) map[string]any {
	t.Helper()
	h := OpsHandler(prometheus.NewRegistry(), NewReadiness(), WithStatus(StatusHandler(src.Status)))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET /status: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("decode %s: %v", rec.Body, err)
	}
	return doc
}

// TestStatusDocument: /status shows what each part reports: the
// pipeline's partitions with their lag, its calls in flight, the session
// writer's partitions with their takeovers, the pause and the build.
func TestStatusDocument(t *testing.T) {
	lag := int64(7)
	took := 1.5
	at := time.Date(2026, 11, 28, 19, 0, 0, 0, time.UTC)
	doc := getStatus(t, StatusSources{Instance: "replica-1", Build: &Build{Version: "1.2.3", Revision: "abc", GoVersion: "go1.x"},
		Pipeline: func() pipeline.Status {
			return pipeline.Status{InFlight: 3, Parked: 4, Partitions: []pipeline.PartitionStatus{
				{Topic: "commands", Partition: 0, Lag: &lag}, {Topic: "commands", Partition: 2}}}
		},
		SessionWriter: func() sessionwriter.Status {
			return sessionwriter.Status{Partitions: []sessionwriter.PartitionStatus{
				{Partition: 1, TakenOverAt: &at, TakeoverSeconds: &took}, {Partition: 4}}}
		},
		Paused: func() any { return map[string]string{"refund": "ops"} },
	})
	want := `{"build":{"go_version":"go1.x","revision":"abc","version":"1.2.3"},"instance":"replica-1",` +
		`"paused":{"refund":"ops"},` +
		`"pipeline":{"in_flight":3,"parked":4,"partitions":[{"lag":7,"partition":0,"topic":"commands"},{"partition":2,"topic":"commands"}],"retrying":0},` +
		`"session_writer":{"partitions":[{"partition":1,"taken_over_at":"2026-11-28T19:00:00Z","takeover_seconds":1.5},{"partition":4}]}}`
	if got, _ := json.Marshal(doc); string(got) != want {
		t.Errorf("status:\n got %s\nwant %s", got, want)
	}
}

// TestStatusAbsentParts: a part with no source, and a pause of nothing,
// are absent from the document, not reported empty or guessed.
func TestStatusAbsentParts(t *testing.T) {
	doc := getStatus(t, StatusSources{Instance: "replica-2", Paused: func() any { return nil }})
	got, _ := json.Marshal(doc)
	if want := `{"instance":"replica-2"}`; string(got) != want {
		t.Errorf("status: got %s, want %s", got, want)
	}
}

// TestStatusNotServedWithout: without WithStatus there is no /status.
func TestStatusNotServedWithout(t *testing.T) {
	rec := httptest.NewRecorder()
	OpsHandler(prometheus.NewRegistry(), NewReadiness()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET /status without WithStatus: %d, want 404", rec.Code)
	}
}
