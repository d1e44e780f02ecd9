package connector

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestReadyzDetailIsNotUnreadiness: a detail (an operator's pause) is in
// /readyz's body while it stays 200; a nil detail is left out.
func TestReadyzDetailIsNotUnreadiness(t *testing.T) {
	ready := NewReadiness()
	var paused any
	ready.AddDetail("paused", func() any { return paused })
	srv := httptest.NewServer(OpsHandler(prometheus.NewRegistry(), ready))
	defer srv.Close()
	get := func() (int, map[string]any) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, doc
	}
	if code, doc := get(); code != http.StatusOK || doc["detail"] != nil {
		t.Fatalf("nothing paused: %d %v", code, doc)
	}
	paused = map[string]string{"capture": "ops"}
	code, doc := get()
	detail, _ := doc["detail"].(map[string]any)
	if code != http.StatusOK || doc["ready"] != true || detail["paused"] == nil {
		t.Fatalf("paused: %d %v, want 200, ready, with the pause under detail", code, doc)
	}
}
