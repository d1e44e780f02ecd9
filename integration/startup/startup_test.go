package startup_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// TestStartRefusesMissingAndUncompactedTopics: the connector does not start
// when a configured topic is missing or the sessions topic is not
// compacted; the error names every such topic.
func TestStartRefusesMissingAndUncompactedTopics(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	missingResults := "test.missing-results." + randomID()
	missingCommand := "test.missing-capture." + randomID()
	s.Vars["PAYSESSION_TOPIC_COMMAND_RESULTS"] = missingResults
	s.Vars["PAYSESSION_TOPIC_CAPTURE"] = missingCommand
	s.Vars["PAYSESSION_TOPIC_SESSIONS"] = harness.Topic(t, s.client, 1) // cleanup.policy=delete
	c, err := s.newConnector(t)
	if err == nil {
		c.Close()
		t.Fatal("connector.New = nil error; want a refusal naming the missing and uncompacted topics")
	}
	for _, want := range []string{missingResults, missingCommand, s.Vars["PAYSESSION_TOPIC_SESSIONS"], "compact"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	// Verify must not have created the missing topics.
	td, err := kadm.NewClient(s.client).ListTopics(context.Background(), missingResults, missingCommand)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{missingResults, missingCommand} {
		if d, ok := td[name]; ok && d.Err == nil {
			t.Errorf("topic %s was created by the start-up check", name)
		}
	}
}

// TestReadyWhileAPIUnreachable: /readyz does not depend on the partner API
// accepting TCP (webhooks need no API); its reachability is the gauge
// paysession_api_reachable.
func TestReadyWhileAPIUnreachable(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	l := harness.Listen(t)
	addr := l.Addr().String()
	l.Close() // nothing listens there
	s.Vars["PAYSESSION_API_BASE_URL"] = "http://" + addr
	c, err := s.newConnector(t)
	if err != nil {
		t.Fatal(err)
	}
	harness.Background(t, "connector Run", c.Run)
	harness.Eventually(t, 60*time.Second, "/readyz 200 with the API unreachable", func() bool {
		code, _ := readyz(t, c)
		return code == 200
	})
	if m := metrics(t, c); !strings.Contains(m, "paysession_api_reachable 0") {
		t.Errorf("/metrics lacks paysession_api_reachable 0")
	}
}

// TestOutcomeTopicDeletedAndRecreated: while the results topic is gone the
// connector stops calling the API after a bounded number of aborted
// transactions, /readyz fails naming the topic, and once the topic is
// recreated every command gets exactly one result without anyone
// rebuilding anything by hand.
func TestOutcomeTopicDeletedAndRecreated(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	c := s.startReady(t)

	adm := kadm.NewClient(s.client)
	results := s.Vars["PAYSESSION_TOPIC_COMMAND_RESULTS"]
	ctx := context.Background()
	if _, err := adm.DeleteTopic(ctx, results); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 30*time.Second, "results topic gone", func() bool {
		td, err := adm.ListTopics(ctx, results)
		return err == nil && (td[results].Err != nil || len(td) == 0)
	})
	const n = 10
	var recs []*kgo.Record
	for i := range n {
		recs = append(recs, &kgo.Record{Topic: s.Vars["PAYSESSION_TOPIC_INIT_PAYOUT"], Key: []byte(fmt.Sprintf("deleted-%s-%02d", randomID(), i)),
			Value: []byte(payout)})
	}
	if err := s.client.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 90*time.Second, "/readyz 503 naming the results topic", func() bool {
		code, failed := readyz(t, c)
		return code == 503 && strings.Contains(failed["topics"], results)
	})
	_, before := s.calls.max()
	resp, err := adm.CreateTopic(ctx, 1, -1, nil, results)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatal(err)
	}
	got := harness.ReadCommitted(t, harness.Kafka(t), results, n)
	seen := map[string]int{}
	for _, r := range got {
		seen[string(r.Key)]++
	}
	for _, r := range recs {
		if seen[string(r.Key)] != 1 {
			t.Errorf("%s: %d results, want 1", r.Key, seen[string(r.Key)])
		}
	}
	key, most := s.calls.max()
	if most > 2 {
		t.Errorf("%s sent %d times; want at most 2 (an aborted batch keeps its outcomes; a redelivered command is not sent again)", key, most)
	}
	t.Logf("most sends of one command: %d during the outage, %d in all", before, most)
	harness.Eventually(t, 30*time.Second, "/readyz 200 again", func() bool { code, _ := readyz(t, c); return code == 200 })
}

// payout is an init_payout to the sandbox's succeeding test card, below the
// confirmation threshold.
const payout = `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111",` +
	`"expiration_month":"12","expiration_year":"29"}}},"amount":1000,"currency":"rub","customer":{"reference":"c-1"}}`

// TestCommandTopicDeletedFailsReadiness: a consumed command topic deleted
// while the connector runs makes /readyz fail naming it.
func TestCommandTopicDeletedFailsReadiness(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	c := s.startReady(t)
	capture := s.Vars["PAYSESSION_TOPIC_CAPTURE"]
	if _, err := kadm.NewClient(s.client).DeleteTopic(context.Background(), capture); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 90*time.Second, "/readyz 503 naming the deleted command topic", func() bool {
		code, failed := readyz(t, c)
		return code == 503 && strings.Contains(failed["topics"], capture)
	})
}
