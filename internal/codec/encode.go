package codec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/schemas"
)

// EncoderConfig configures an Encoder.
type EncoderConfig struct {
	// Registry, when set, makes the Encoder write the Confluent wire format
	// (magic 0x00 + 4-byte schema id) with the schema registered under the
	// subject "<topic>-value". Without it, values are Avro single-object
	// encoded (0xC3 0x01 + CRC-64-AVRO fingerprint).
	Registry *sr.Client
	// Topics maps each topic to the schema of its values; Prepare registers
	// (or looks up) exactly these. Encode also accepts other topics and
	// resolves their subject on first use.
	Topics map[string]schemas.Name
	// LookupOnly makes Prepare and Encode look schemas up instead of
	// registering them, for registries where the connector may not write.
	LookupOnly bool
	// Logger receives one line per subject resolved. Optional.
	Logger *slog.Logger
}

// Validate reports every problem of the configuration at once.
func (c EncoderConfig) Validate() error {
	var errs []error
	for topic, n := range c.Topics {
		if topic == "" {
			errs = append(errs, errors.New("empty topic name in Topics"))
		}
		if _, err := schemas.Get(n); err != nil {
			errs = append(errs, fmt.Errorf("unknown schema %q in Topics[%s]", n, topic))
		}
	}
	return errors.Join(errs...)
}

// Encoder encodes commands and outcome records as Avro. It is safe for
// concurrent use.
type Encoder struct {
	cfg EncoderConfig
	log *slog.Logger

	mu  sync.Mutex
	ids map[subjectKey]int // (subject, schema) -> registry id
}

type subjectKey struct {
	subject string
	schema  schemas.Name
}

// NewEncoder returns an Encoder; it does not contact the registry (see Prepare).
func NewEncoder(cfg EncoderConfig) (*Encoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("encoder config: %w", err)
	}
	if _, err := loadSchemas(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Encoder{cfg: cfg, log: log, ids: map[subjectKey]int{}}, nil
}

// Subject returns the registry subject of a topic's values: "<topic>-value".
func Subject(topic string) string { return topic + "-value" }

// Prepare registers (or looks up) the schema of every configured topic, so
// that a missing or incompatible schema stops the connector at start. It is
// a no-op without a registry.
func (e *Encoder) Prepare(ctx context.Context) error {
	if e.cfg.Registry == nil {
		return nil
	}
	var errs []error
	for topic, n := range e.cfg.Topics {
		if _, err := e.schemaID(ctx, topic, n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Encode encodes v for topic: Confluent wire format with a registry,
// single-object encoding without. Registry failures are *RegistryError.
func (e *Encoder) Encode(ctx context.Context, topic string, v Record) ([]byte, error) {
	if e.cfg.Registry == nil {
		return EncodeSingleObject(v)
	}
	n := v.SchemaName()
	id, err := e.schemaID(ctx, topic, n)
	if err != nil {
		return nil, err
	}
	return EncodeConfluent(id, v)
}

// EncodeSingleObject encodes v with the Avro single-object encoding of its
// current schema.
func EncodeSingleObject(v Record) ([]byte, error) {
	s, err := Schema(v.SchemaName())
	if err != nil {
		return nil, err
	}
	fp := fingerprint(s)
	out := append(append(make([]byte, 0, 64), soeMagic...), fp[:]...)
	out, err = appendAvro(out, v)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EncodeConfluent encodes v with its current schema in the Confluent wire
// format under the given registry schema id.
func EncodeConfluent(id int, v Record) ([]byte, error) {
	out := make([]byte, 5, 64)
	binary.BigEndian.PutUint32(out[1:5], uint32(id))
	return appendAvro(out, v)
}

// MarshalAvro returns the plain Avro binary encoding of v (no header).
func MarshalAvro(v Record) ([]byte, error) { return appendAvro(nil, v) }

func appendAvro(out []byte, v Record) ([]byte, error) {
	s, err := Schema(v.SchemaName())
	if err != nil {
		return nil, err
	}
	out, err = s.AppendEncode(out, v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %s", v.SchemaName(), scrub(err.Error()))
	}
	return out, nil
}

func (e *Encoder) schemaID(ctx context.Context, topic string, n schemas.Name) (int, error) {
	key := subjectKey{subject: Subject(topic), schema: n}
	e.mu.Lock()
	id, ok := e.ids[key]
	e.mu.Unlock()
	if ok {
		return id, nil
	}
	text, err := schemas.Get(n)
	if err != nil {
		return 0, err
	}
	sch := sr.Schema{Schema: text, Type: sr.TypeAvro}
	var ss sr.SubjectSchema
	op := "register"
	if e.cfg.LookupOnly {
		op = "look up"
		ss, err = e.cfg.Registry.LookupSchema(ctx, key.subject, sch)
	} else {
		ss, err = e.cfg.Registry.CreateSchema(ctx, key.subject, sch)
	}
	if err != nil {
		return 0, &RegistryError{Op: fmt.Sprintf("%s %s for subject %s", op, n, key.subject), Err: err}
	}
	e.mu.Lock()
	e.ids[key] = ss.ID
	e.mu.Unlock()
	e.log.Info("schema ready", slog.String("subject", key.subject), slog.String("schema", string(n)),
		slog.Int("schema_id", ss.ID), slog.Int("version", ss.Version))
	return ss.ID, nil
}
