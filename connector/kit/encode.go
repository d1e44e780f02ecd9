package kit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/schemas"
)

// Format is a wire format of command values.
type Format string

// The wire formats the connector reads, told apart by the first byte.
const (
	// FormatJSON is strict JSON: member names are the .avsc field names;
	// metadata is written as held, '<', '>' and '&' unescaped.
	FormatJSON Format = "json"
	// FormatSingleObject is Avro single-object encoding: 0xC3 0x01, the
	// schema's CRC-64-AVRO fingerprint, the Avro binary body.
	FormatSingleObject Format = "avro"
	// FormatConfluent is the Confluent wire format: 0x00, the 4-byte schema
	// id of subject "<topic>-value" in the registry, the Avro binary body.
	FormatConfluent Format = "confluent"
)

// ParseFormat returns the format named s: json, avro or confluent.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatJSON, FormatSingleObject, FormatConfluent:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q: want json, avro or confluent", s)
}

// EncoderConfig configures an Encoder.
type EncoderConfig struct {
	// Format of the values; default FormatJSON.
	Format Format
	// Registry is the schema registry of FormatConfluent (required with it,
	// unused otherwise). The encoder registers each command schema under
	// "<topic>-value" on first use, or only looks it up with LookupOnly.
	Registry *sr.Client
	// LookupOnly makes FormatConfluent look schemas up instead of
	// registering them, for registries producers may not write to.
	LookupOnly bool
	// Topics are the command topics Record writes to; default DefaultTopics.
	Topics Topics
}

// Validate reports every problem of the configuration at once.
func (c EncoderConfig) Validate() error {
	var errs []error
	if c.Format != "" {
		if _, err := ParseFormat(string(c.Format)); err != nil {
			errs = append(errs, fmt.Errorf("Format: %w", err))
		}
	}
	if c.Format == FormatConfluent && c.Registry == nil {
		errs = append(errs, errors.New("Registry: required with FormatConfluent"))
	}
	return errors.Join(errs...)
}

// Encoder encodes commands for the command topics. It is safe for
// concurrent use.
type Encoder struct {
	cfg EncoderConfig
	enc *codec.Encoder
}

// NewEncoder returns an Encoder; it does not contact the registry before
// the first Confluent value.
func NewEncoder(cfg EncoderConfig) (*Encoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kit encoder: %w", err)
	}
	if cfg.Format == "" {
		cfg.Format = FormatJSON
	}
	if cfg.Topics.Commands == nil {
		cfg.Topics = DefaultTopics()
	}
	var reg *sr.Client
	if cfg.Format == FormatConfluent {
		reg = cfg.Registry
	}
	enc, err := codec.NewEncoder(codec.EncoderConfig{Registry: reg, LookupOnly: cfg.LookupOnly})
	if err != nil {
		return nil, err
	}
	return &Encoder{cfg: cfg, enc: enc}, nil
}

// Encode returns the value of cmd for topic in the configured format. It
// validates cmd first, as the connector will: an invalid command is
// returned as an error (joined *ValidationError values naming each field)
// instead of reaching the dead-letter topic.
func (e *Encoder) Encode(ctx context.Context, topic string, cmd Command) ([]byte, error) {
	if err := cmd.Validate(); err != nil {
		return nil, err
	}
	switch e.cfg.Format {
	case FormatJSON:
		return codec.EncodeJSON(cmd)
	case FormatSingleObject:
		return codec.EncodeSingleObject(cmd)
	default:
		return e.enc.Encode(ctx, topic, cmd)
	}
}

// Record returns the record of cmd for its kind's command topic: key = the
// idempotency key (4 to 64 printable ASCII characters, the same for every
// retry of the command), value = Encode.
func (e *Encoder) Record(ctx context.Context, key string, cmd Command) (*kgo.Record, error) {
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	topic := e.cfg.Topics.CommandTopic(cmd.Kind())
	if topic == "" {
		return nil, fmt.Errorf("no topic for command kind %s", cmd.Kind())
	}
	v, err := e.Encode(ctx, topic, cmd)
	if err != nil {
		return nil, err
	}
	return &kgo.Record{Topic: topic, Key: []byte(key), Value: v, Timestamp: time.Now()}, nil
}

// CheckKey reports whether key can be an idempotency key: 4 to 64
// printable ASCII characters, and not a card number.
func CheckKey(key string) error {
	return codec.ValidateIdempotencyKey(key)
}

// EncodeSingleObject returns r (a command or an outcome) in Avro
// single-object encoding, as the connector writes outcomes without a
// registry: consumers' tests build their input records with it.
func EncodeSingleObject(r Record) ([]byte, error) { return codec.EncodeSingleObject(r) }

// EncodeConfluent returns r in the Confluent wire format under registry
// schema id (the id of r's schema under the topic's subject).
func EncodeConfluent(id int, r Record) ([]byte, error) { return codec.EncodeConfluent(id, r) }

// SchemaText returns the .avsc text of schema n, as embedded in the
// connector.
func SchemaText(n SchemaName) (string, error) { return schemas.Get(n) }
