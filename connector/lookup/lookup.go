package lookup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/internal/header"
)

// What a Line of a lookup is (Line.Record).
const (
	RecordResult     = "result"
	RecordSession    = "session"
	RecordDeadLetter = "dead_letter"
	RecordRetry      = "retry"
	// RecordRedriven is a redrive marker: the key's dead letter named in
	// its header.Redriven was redriven then.
	RecordRedriven = "redriven"
)

// Config is what a lookup reads: the connector's topic names, the decoder
// of their values (with the registry when the connector writes the
// Confluent format), and a client of the brokers built as Read requires.
type Config struct {
	Topics  kit.Topics
	Decoder *kit.Decoder
	Client  *kgo.Client
}

// Validate returns every missing part of c.
func (c Config) Validate() error {
	var errs []error
	if c.Decoder == nil {
		errs = append(errs, errors.New("lookup: no decoder"))
	}
	if c.Client == nil {
		errs = append(errs, errors.New("lookup: no client"))
	}
	for _, t := range []struct{ name, topic string }{{"command results", c.Topics.CommandResults},
		{"dead-letter", c.Topics.DeadLetter}, {"retry", c.Topics.Retry}, {"sessions", c.Topics.Sessions}} {
		if t.topic == "" {
			errs = append(errs, fmt.Errorf("lookup: no %s topic", t.name))
		}
	}
	return errors.Join(errs...)
}

// Find returns what the topics hold of the command whose outcome key is
// key (its idempotency key, or "invalid-<topic>-<partition>-<offset>" for a
// command whose key was invalid): its results, dead letters and retry
// records, and the latest state of each session they name, in time order.
// No line and no error means the topics hold nothing of key.
//
// Each topic is read up to the end offsets it has when its reading
// begins; the sessions topic is read after the others, so a session a
// result names has its state at least as new as the result.
func Find(ctx context.Context, cfg Config, key string) ([]Line, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := cfg.Topics
	var lines []Line
	sessions := map[string]bool{}
	err := Read(ctx, cfg.Client, Range{Topics: []string{t.CommandResults, t.DeadLetter, t.Retry}}, func(r *kgo.Record) bool {
		switch r.Topic {
		case t.CommandResults:
			if string(r.Key) == key {
				l := decode(ctx, cfg, r)
				if res, ok := l.decoded.(*kit.CommandResult); ok && res.SessionID != nil && *res.SessionID != "" {
					sessions[*res.SessionID] = true
				}
				lines = append(lines, withRecord(l, RecordResult))
			}
		case t.DeadLetter:
			switch _, marker := header.Get(r, header.Redriven); {
			case string(r.Key) != key:
			case marker:
				lines = append(lines, withRecord(Header(r), RecordRedriven)) // no value
			default:
				lines = append(lines, withRecord(decode(ctx, cfg, r), RecordDeadLetter))
			}
		case t.Retry:
			if k, _ := header.Get(r, header.Key); k == key {
				if lane, _ := header.Get(r, header.Lane); strings.HasPrefix(lane, "s:") {
					sessions[strings.TrimPrefix(lane, "s:")] = true
				}
				lines = append(lines, withRecord(Header(r), RecordRetry)) // no value: the command is read back from its source
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(sessions) > 0 {
		latest := map[string]*kgo.Record{}
		err := Read(ctx, cfg.Client, Range{Topics: []string{t.Sessions}}, func(r *kgo.Record) bool {
			if sessions[string(r.Key)] {
				latest[string(r.Key)] = r // a session's last record is its newest state
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		for _, r := range latest {
			lines = append(lines, withRecord(decode(ctx, cfg, r), RecordSession))
		}
	}
	slices.SortStableFunc(lines, func(a, b Line) int { return a.Timestamp.Compare(b.Timestamp) })
	return lines, nil
}

// decode decodes r as its topic's schema.
func decode(ctx context.Context, cfg Config, r *kgo.Record) Line {
	schema, known := cfg.Topics.Schema(r.Topic)
	return Decode(ctx, cfg.Decoder, r, schema, known)
}

func withRecord(l Line, what string) Line {
	l.Record = what
	return l
}
