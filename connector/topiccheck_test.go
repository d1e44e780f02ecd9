package connector

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/paysession/paysession/internal/config"
)

// TestVerifyTopicsAsksAgainWhenABrokerClosesTheConnection: a broker that
// closes the connection at the topic check (one of three down or still
// starting) does not stop the start: the check is asked again, and
// answered. Before, the start failed with "describe topic configs: ...".
func TestVerifyTopicsAsksAgainWhenABrokerClosesTheConnection(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	opts := []kgo.Opt{kgo.SeedBrokers(cluster.ListenAddrs()...)}
	cfg := loadConfig(t, nil)
	createWanted(t, opts, cfg)

	closed := 0
	cluster.ControlKey(int16(kmsg.DescribeConfigs), func(kmsg.Request) (kmsg.Response, error, bool) {
		if closed < 2 {
			closed++
			cluster.KeepControl()
			return nil, errors.New("broker starting"), true // kfake closes the connection
		}
		return nil, nil, false
	})
	rep, err := verifyTopics(context.Background(), cfg, opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("verifyTopics: %v, want the check asked again and answered", err)
	}
	if closed != 2 {
		t.Fatalf("%d connections closed, want 2", closed)
	}
	if r, ok := rep.Topic(cfg.Topics.Sessions); !ok || !r.ConfigsKnown {
		t.Fatalf("sessions topic report %+v: want its configs read", r)
	}
}

// TestAskAgain: only failures to ask the cluster are asked again; a
// broker's definite refusal is reported at once.
func TestAskAgain(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{errors.New("broker closed the connection immediately"), true},
		{kerr.NotController, true},
		{kerr.ClusterAuthorizationFailed, false},
		{&kadm.AuthError{Err: kerr.TopicAuthorizationFailed}, false},
		{context.DeadlineExceeded, false},
	} {
		if got := askAgain(tc.err); got != tc.want {
			t.Errorf("askAgain(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// createWanted creates every topic cfg wants, compacted where wanted.
func createWanted(t *testing.T, opts []kgo.Opt, cfg *config.Config) {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for _, w := range TopicWants(cfg) {
		var configs map[string]*string
		if w.Compacted {
			compact := "compact"
			configs = map[string]*string{"cleanup.policy": &compact}
		}
		if _, err := adm.CreateTopic(context.Background(), 1, 1, configs, w.Topic); err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			t.Fatalf("create %s: %v", w.Topic, err)
		}
	}
}
