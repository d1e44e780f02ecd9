package startup_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/integration/harness"
)

// TestStatusListsOwnedPartitions: a lone replica's /status lists every
// partition it consumes (each command topic's and the retry topic's) and
// the session writer's partition, taken over with its time, and its
// instance id.
func TestStatusListsOwnedPartitions(t *testing.T) {
	s := newSetup(t)
	c := s.startReady(t)
	cfg := s.Config(t)
	var want []string
	for _, topic := range cfg.Topics.Commands() {
		want = append(want, topic+"/0")
	}
	want = append(want, cfg.Topics.Retry+"/0")
	slices.Sort(want)
	var doc connector.Status
	harness.Eventually(t, 30*time.Second, "/status lists the owned partitions", func() bool {
		doc = status(t, c)
		if doc.Pipeline == nil || doc.SessionWriter == nil {
			return false
		}
		var got []string
		for _, p := range doc.Pipeline.Partitions {
			got = append(got, fmt.Sprintf("%s/%d", p.Topic, p.Partition))
		}
		sw := doc.SessionWriter.Partitions
		return slices.Equal(got, want) && len(sw) == 1 && sw[0].Partition == 0 && sw[0].TakenOverAt != nil
	})
	if doc.Instance != "startup" {
		t.Errorf("instance %q, want startup", doc.Instance)
	}
}

// status returns the decoded /status document of c.
func status(t *testing.T, c opsServer) connector.Status {
	t.Helper()
	resp, err := http.Get("http://" + c.OpsAddr() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc connector.Status
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
