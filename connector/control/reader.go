package control

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// DefaultFetchMaxWait is how long a fetch of the control topic waits for a
// record when there is none: the part of the pause bound spent learning of
// a new record (helm/paysession-connector/README.md, "Pause and resume").
const DefaultFetchMaxWait = 500 * time.Millisecond

// Config configures a Reader.
type Config struct {
	// Kafka are the client options (seeds, TLS, SASL, logging); the Reader
	// adds its topic and start offset, and never joins a group.
	Kafka []kgo.Opt
	// Topic is the control topic (required).
	Topic string
	// Kinds are the command kinds a record may name; records of other keys
	// are logged and ignored (required).
	Kinds []string
	// FetchMaxWait bounds how long a fetch waits for a record (default
	// DefaultFetchMaxWait).
	FetchMaxWait time.Duration
	// Logger (required) and Registerer (optional: no metrics).
	Logger     *slog.Logger
	Registerer prometheus.Registerer
}

// Reader follows the control topic from its start and holds the latest
// record of each command kind. Its state is known once it has read every
// record the topic held when it started (Paused).
type Reader struct {
	cfg    Config
	kinds  map[string]bool
	paused *prometheus.GaugeVec

	mu     sync.Mutex
	state  map[string]Record // kind → latest record that pauses it
	known  bool
	caught chan struct{} // closed when known
}

// New returns a Reader ready to Run.
func New(cfg Config) (*Reader, error) {
	if cfg.Topic == "" || len(cfg.Kinds) == 0 || cfg.Logger == nil {
		return nil, errors.New("control reader: topic, kinds and logger are required")
	}
	if cfg.FetchMaxWait <= 0 {
		cfg.FetchMaxWait = DefaultFetchMaxWait
	}
	r := &Reader{cfg: cfg, kinds: map[string]bool{}, state: map[string]Record{}, caught: make(chan struct{}),
		paused: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "paysession_control_paused",
			Help: "1 while the command kind is paused by an operator's record on the control topic (no new API calls of that kind), else 0.",
		}, []string{"kind"})}
	for _, k := range cfg.Kinds {
		r.kinds[k] = true
		r.paused.WithLabelValues(k).Set(0)
	}
	if cfg.Registerer != nil {
		if err := cfg.Registerer.Register(r.paused); err != nil {
			return nil, fmt.Errorf("control metrics: %w", err)
		}
	}
	return r, nil
}

// Paused returns the paused kinds with the record that paused each, and
// whether the state is known: false until the Reader has read every record
// the topic held when it started (a caller must not act as if nothing
// were paused before that).
func (r *Reader) Paused() (map[string]Record, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.state), r.known
}

// Known is closed once the state is known (Paused).
func (r *Reader) Known() <-chan struct{} { return r.caught }

// Run follows the topic until ctx ends. Errors of the cluster (a broker
// restart) are retried; Run returns an error only for options the client
// refuses.
func (r *Reader) Run(ctx context.Context) error {
	cl, err := kgo.NewClient(append(slices.Clone(r.cfg.Kafka), kgo.ConsumeTopics(r.cfg.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(r.cfg.FetchMaxWait))...)
	if err != nil {
		return fmt.Errorf("control reader: %w", err)
	}
	defer cl.Close()
	ends := r.startEnds(ctx, cl)
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		if fs.IsClientClosed() {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			if ctx.Err() == nil {
				r.cfg.Logger.Warn("control topic fetch error", slog.String("topic", t), slog.Int("partition", int(p)), slog.Any("error", err))
			}
		})
		fs.EachRecord(func(rec *kgo.Record) {
			r.apply(rec)
			if end, ok := ends[rec.Partition]; ok && rec.Offset+1 >= end {
				delete(ends, rec.Partition)
			}
		})
		if len(ends) == 0 {
			r.markKnown()
		}
	}
	return nil
}

// startEnds lists the end offset of every non-empty partition of the
// topic, retrying until it gets an answer or ctx ends: the records to read
// before the state is known.
func (r *Reader) startEnds(ctx context.Context, cl *kgo.Client) map[int32]int64 {
	adm := kadm.NewClient(cl)
	wait := 100 * time.Millisecond
	for {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		starts, err := adm.ListStartOffsets(lctx, r.cfg.Topic)
		var ends kadm.ListedOffsets
		if err == nil {
			ends, err = adm.ListEndOffsets(lctx, r.cfg.Topic)
		}
		cancel()
		if err == nil {
			err = errors.Join(starts.Error(), ends.Error())
		}
		if err == nil {
			out := map[int32]int64{}
			ends.Each(func(o kadm.ListedOffset) {
				if s, ok := starts.Lookup(o.Topic, o.Partition); ok && o.Offset > s.Offset {
					out[o.Partition] = o.Offset
				}
			})
			if len(out) == 0 {
				r.markKnown()
			}
			return out
		}
		if ctx.Err() != nil {
			return nil
		}
		r.cfg.Logger.Warn("control topic offsets not listed; retrying", slog.String("topic", r.cfg.Topic), slog.Any("error", err))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// apply takes one record into the state, logging every change.
func (r *Reader) apply(rec *kgo.Record) {
	kind := string(rec.Key)
	if kind == TopicsPlanKey {
		return
	}
	log := r.cfg.Logger.With(slog.String("kind", kind), slog.Int64("offset", rec.Offset), slog.Int("partition", int(rec.Partition)))
	if !r.kinds[kind] {
		log.Warn("control record names no command kind; ignored")
		return
	}
	c, err := Decode(rec.Value)
	if err != nil {
		log.Warn("control record does not parse; ignored", slog.Any("error", err))
		return
	}
	r.mu.Lock()
	_, was := r.state[kind]
	if c.Paused {
		r.state[kind] = c
	} else {
		delete(r.state, kind)
	}
	r.mu.Unlock()
	if was == c.Paused {
		return
	}
	if c.Paused {
		r.paused.WithLabelValues(kind).Set(1)
		log.Warn("command kind paused by an operator: no new API calls of it", slog.String("by", c.By), slog.Time("at", c.At))
	} else {
		r.paused.WithLabelValues(kind).Set(0)
		log.Info("command kind resumed by an operator", slog.String("by", c.By), slog.Time("at", c.At))
	}
}

func (r *Reader) markKnown() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.known {
		r.known = true
		close(r.caught)
	}
}
