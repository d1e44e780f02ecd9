package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/outbound"
)

// TestPipelineFollowsARaisedLimit: the session-updates topic takes 8 KiB;
// an init_payout with 12 KiB of metadata gets its result and a session
// update without the metadata. Then its max.message.bytes is raised on the
// cluster: within the limits' refresh (500 ms here, a minute in the
// connector) and a rebuild of the pipeline's Kafka session, the same
// command's twin gets its session update whole, without a restart. With
// the limits read once at start (main before this change) it stays lean.
func TestPipelineFollowsARaisedLimit(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayout}})
	adm := kadm.NewClient(e.cl)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	setLimit := func(n string) {
		t.Helper()
		resp, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "max.message.bytes", Value: kadm.StringPtr(n)}}, e.topics.SessionUpdates)
		if err == nil {
			_, err = resp.On(e.topics.SessionUpdates, nil)
		}
		if err != nil {
			t.Fatalf("set max.message.bytes of %s to %s: %v", e.topics.SessionUpdates, n, err)
		}
	}
	setLimit("8192")
	var wants []topics.Want
	for _, tp := range e.topics.All() {
		wants = append(wants, topics.Want{Topic: tp, Role: topics.Results})
	}
	var rep topics.Report
	harness.Eventually(t, 30*time.Second, "the lowered limit read", func() bool {
		var err error
		rep, err = topics.Verify(ctx, adm, wants)
		return err == nil && rep.MaxMessageBytes(e.topics.SessionUpdates) == 8192
	})
	limits := topics.NewLive(rep)
	go func() { _ = limits.Run(ctx, func() *kadm.Client { return adm }, 500*time.Millisecond, testLogger()) }()
	sizer, err := outbound.NewSizer(limits, nil, testLogger())
	if err != nil {
		t.Fatal(err)
	}
	e.start(t, func(c *pipeline.Config) { c.Sizer = sizer })

	payout := func() (meta bool) {
		t.Helper()
		k := key("payout")
		e.produce(t, e.command(codec.KindInitPayout, k, fmt.Sprintf(`{"instrument":%s,"amount":5000,"currency":"rub","metadata":{"note":%q}}`,
			cardJSON(cardSuccess), strings.Repeat("n", 12<<10))))
		res := e.out.result(t, k, 60*time.Second)
		if res.Status != codec.StatusAccepted || res.SessionID == nil {
			t.Fatalf("result %s, session %v; want accepted", res.Status, res.SessionID)
		}
		var st codec.SessionState
		e.out.wait(t, 60*time.Second, "session update of "+*res.SessionID, func() bool {
			ss := e.out.sessions[*res.SessionID]
			if len(ss) == 0 {
				return false
			}
			st = ss[len(ss)-1]
			return true
		})
		for _, o := range st.Session.Operations {
			meta = meta || o.Metadata != nil
		}
		return meta
	}
	if payout() {
		t.Fatal("at 8 KiB: the session update carries its 12 KiB of metadata")
	}
	setLimit("1048576")
	harness.Eventually(t, 30*time.Second, "the raised limit read", func() bool {
		return limits.MaxMessageBytes(e.topics.SessionUpdates) == 1048576
	})
	if !payout() {
		t.Error("after the raise: the session update is still without its metadata")
	}
}
