package connector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/config"
)

// TopicWants lists every topic the configuration uses and what the
// connector needs of each: the command topics it reads, the retry and
// attempts topics it reads and writes (attempts compacted), the outcome
// topics it writes, the session-updates topic from which the session writer
// derives the sessions topic (compacted, read by the reconciler) and the
// webhook-events topic (both partitioned like the updates), the control
// topic it reads (compacted: operators' pause and resume), and the
// periodic topics when their publishers are on.
func TopicWants(cfg *config.Config) []topics.Want {
	t := cfg.Topics
	var ws []topics.Want
	for _, topic := range pipelineTopics(t).Commands {
		ws = append(ws, topics.Want{Topic: topic, Role: topics.Command, Read: true})
	}
	ws = append(ws,
		topics.Want{Topic: t.Retry, Role: topics.Retry, Read: true, Write: true},
		topics.Want{Topic: t.Attempts, Role: topics.Attempts, Read: true, Write: true, Compacted: true},
		topics.Want{Topic: t.CommandResults, Role: topics.Results, Write: true},
		topics.Want{Topic: t.SessionUpdates, Role: topics.SessionUpdates, Read: true, Write: true},
		topics.Want{Topic: t.Sessions, Role: topics.Sessions, Read: true, Write: true, Compacted: true, PartitionsLike: t.SessionUpdates},
		topics.Want{Topic: t.WebhookEvents, Role: topics.WebhookEvents, Read: true, Write: true, PartitionsLike: t.SessionUpdates},
		topics.Want{Topic: t.DeadLetter, Role: topics.DeadLetter, Write: true},
		topics.Want{Topic: t.Control, Role: topics.Control, Read: true, Compacted: true},
	)
	if cfg.Publish.WalletBalanceInterval > 0 {
		ws = append(ws, topics.Want{Topic: t.WalletBalances, Role: topics.Periodic, Write: true})
	}
	if cfg.Publish.FPSBanksInterval > 0 {
		ws = append(ws, topics.Want{Topic: t.FPSBanks, Role: topics.Periodic, Write: true})
	}
	return ws
}

// verifyTopics checks every configured topic before anything runs: a
// missing topic, a sessions or attempts topic that is not compacted, or a
// cluster that cannot be asked within verifyTimeout (a broker that cannot
// be reached is asked again: another may answer) stops the start with an
// error naming each;
// settings that only weaken guarantees are logged. The report sizes what
// the connector writes (dead letters, producer batch caps).
func verifyTopics(ctx context.Context, cfg *config.Config, kafkaOpts []kgo.Opt, log *slog.Logger) (topics.Report, error) {
	cl, err := kgo.NewClient(kafkaOpts...)
	if err != nil {
		return topics.Report{}, fmt.Errorf("kafka: %w", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	adm, wants := kadm.NewClient(cl), TopicWants(cfg)
	rep, err := topics.Verify(ctx, adm, wants)
	for wait := verifyBackoff; err != nil && askAgain(err); wait = min(2*wait, 8*verifyBackoff) {
		log.Warn("kafka topics could not be verified yet; asking again", slog.Duration("in", wait), slog.Any("error", err))
		select {
		case <-ctx.Done():
			return topics.Report{}, fmt.Errorf("verify kafka topics: %w (for %v)", err, verifyTimeout)
		case <-time.After(wait):
		}
		rep, err = topics.Verify(ctx, adm, wants)
	}
	if err != nil {
		return topics.Report{}, fmt.Errorf("verify kafka topics: %w", err)
	}
	if err := rep.Err(); err != nil {
		return topics.Report{}, fmt.Errorf("kafka topics: %w", err)
	}
	for _, w := range rep.Warnings() {
		log.Warn("kafka topic setting weakens a guarantee", slog.String("warning", w))
	}
	return rep, nil
}

// verifyTimeout bounds the topic check at start, its retries included;
// verifyBackoff is its first pause between attempts (doubling, to 8 times
// it).
const (
	verifyTimeout = 30 * time.Second
	verifyBackoff = 250 * time.Millisecond
)

// askAgain reports whether a failed topic check is worth repeating: the
// cluster could not be asked (a broker down, starting, or closing
// connections while others answer; a request timing out), as opposed to a
// broker's definite refusal (an authorization or other non-retriable Kafka
// error), which is reported at once. Problems with the topics themselves
// are not errors of Verify but violations of its report, never retried.
func askAgain(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Retriable
	}
	var auth *kadm.AuthError
	return !errors.As(err, &auth)
}

// topicsPresent is a readiness check: every configured topic is in the
// cluster's metadata (a consumer does not report a topic deleted under it,
// and a producer learns of it only after its retries). The error names each
// missing topic.
func topicsPresent(client func() *kgo.Client, wants []topics.Want) Check {
	return func(ctx context.Context) error {
		names := make([]string, 0, len(wants))
		for _, w := range wants {
			names = append(names, w.Topic)
		}
		td, err := kadm.NewClient(client()).ListTopics(ctx, names...)
		if err != nil {
			return fmt.Errorf("list topics: %w", err)
		}
		var errs []error
		for _, n := range names {
			if d, ok := td[n]; !ok || d.Err != nil {
				errs = append(errs, fmt.Errorf("topic %s: missing: %w", n, cmp.Or(d.Err, error(kerr.UnknownTopicOrPartition))))
			}
		}
		return errors.Join(errs...)
	}
}
