package pipeline

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// TestSessionStatesNameTheCommandsProject: the session states a command
// learns (its API answer, a settling status query) name the partner
// project the command names, so the reconciler polls the session under
// it; a command naming none leaves the states unnamed (the default
// project).
func TestSessionStatesNameTheCommandsProject(t *testing.T) {
	tests := []struct {
		name, value string
		want        string // "" means nil
	}{
		{"default project", `{"session_id":"ps_1"}`, ""},
		{"second project", `{"session_id":"ps_1","project":"shop-2"}`, "shop-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPipeline(t, &fakeAPI{}, nil)
			rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte("key-0001"), Value: []byte(tt.value), Timestamp: testNow}
			in := p.polled(rec, "capture", false)
			in.neverAttempted = true
			out := p.process(context.Background(), in)
			if out.verdict.Status != codec.StatusAccepted {
				t.Fatalf("outcome %s %s", out.verdict.Status, out.verdict.Description)
			}
			recs, err := p.outcomeRecords(context.Background(), out, testNow)
			if err != nil {
				t.Fatal(err)
			}
			states := 0
			for _, r := range recs {
				if r.Topic != p.cfg.Topics.SessionUpdates {
					continue
				}
				states++
				var st codec.SessionState
				if err := json.Unmarshal(r.Value, &st); err != nil {
					t.Fatal(err)
				}
				got := ""
				if st.Project != nil {
					got = *st.Project
				}
				if got != tt.want || (st.Project != nil && *st.Project == "") {
					t.Fatalf("%s state names project %v, want %q", st.Source, st.Project, tt.want)
				}
			}
			if states == 0 {
				t.Fatal("no session state learned")
			}
		})
	}
}
