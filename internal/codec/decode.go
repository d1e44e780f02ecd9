package codec

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/avro"
	"github.com/twmb/franz-go/pkg/sr"
	"golang.org/x/sync/singleflight"

	"github.com/paysession/paysession/internal/fifo"
	"github.com/paysession/paysession/schemas"
)

// DecoderConfig configures a Decoder.
type DecoderConfig struct {
	// Registry is the schema registry client used to fetch the writer schema
	// of Confluent wire-format values, and the subjects it is registered
	// under. Optional: without it such values are rejected with a
	// *DecodeError.
	Registry *sr.Client
	// Logger receives one line per writer schema fetched. Optional.
	Logger *slog.Logger
	// Now is the clock refusals expire by (RefusalTTL). Optional:
	// time.Now.
	Now func() time.Time
}

// Validate reports configuration problems (none today; kept for the
// constructor convention).
func (c DecoderConfig) Validate() error { return nil }

// Decoder decodes command values of every format. It is safe for concurrent
// use; writer schemas fetched from the registry and their resolution against
// our reader schemas are cached.
type Decoder struct {
	registry *sr.Client
	log      *slog.Logger

	mu       sync.Mutex
	now      func() time.Time
	writers  map[int]*avro.Schema              // registry id -> writer schema
	usages   map[usageKey]struct{}             // (id, subject) registered there
	refusals *fifo.Set[usageKey, *DecodeError] // ids not found, or not under a subject: bounded, expiring
	resolved map[resolveKey]*avro.Schema       // (writer, reader) -> resolved schema
	failures map[resolveKey]*DecodeError       // incompatible pairs, remembered
	fetching singleflight.Group                // one registry request per question at a time
	_        struct{}
}

type resolveKey struct {
	writer [8]byte // fingerprint of the writer schema
	reader schemas.Name
}

// NewDecoder returns a Decoder.
func NewDecoder(cfg DecoderConfig) (*Decoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if _, err := loadSchemas(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Decoder{
		registry: cfg.Registry,
		log:      log,
		now:      now,
		writers:  map[int]*avro.Schema{},
		usages:   map[usageKey]struct{}{},
		refusals: fifo.New[usageKey, *DecodeError](MaxRefusals, RefusalTTL),
		resolved: map[resolveKey]*avro.Schema{},
		failures: map[resolveKey]*DecodeError{},
	}, nil
}

// DetectFormat returns the format of a command value from its first bytes.
func DetectFormat(value []byte) Format {
	switch {
	case len(value) > 0 && value[0] == 0x00:
		return FormatConfluent
	case len(value) > 1 && value[0] == 0xC3 && value[1] == 0x01:
		return FormatSingleObject
	}
	trimmed := bytes.TrimLeft(value, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return FormatJSON
	}
	return FormatUnknown
}

// Decode decodes a command value of the given kind read from topic. Errors
// are *DecodeError (final: dead-letter the record) or *RegistryError
// (transient: retry later). A Confluent wire-format value is decoded only
// with a writer schema registered under the topic's value subject
// (Subject(topic)); topic is not used for the other formats. Decode does not
// validate: call Command.Validate.
func (d *Decoder) Decode(ctx context.Context, topic string, kind CommandKind, value []byte) (Command, error) {
	cmd := kind.New()
	if cmd == nil {
		return nil, &DecodeError{Format: FormatUnknown, Reason: fmt.Sprintf("unknown command kind %q", kind)}
	}
	var err error
	f := DetectFormat(value)
	switch f {
	case FormatJSON:
		err = decodeJSON(value, cmd)
	case FormatConfluent:
		if topic == "" {
			return nil, &DecodeError{Format: f, Reason: "Confluent wire format but no topic to check the writer schema's subject against"}
		}
		err = d.decodeConfluent(ctx, Subject(topic), cmd.SchemaName(), value, cmd)
	default:
		err = d.DecodeRecord(ctx, value, cmd)
	}
	if err == nil && f != FormatJSON {
		// Avro strings are bytes on the wire: hold them to the rules of
		// strict JSON (valid UTF-8, strict metadata documents).
		err = checkStrictStrings(f, cmd)
	}
	if err != nil {
		return nil, err
	}
	return cmd, nil
}

// DecodeRecord decodes an Avro value (Confluent wire format or single-object
// encoding) into v, a pointer to any command or outcome type of this
// package: the way to read the connector's own outcome topics back (redrive,
// reconciler, tests). Writer schemas other than v's current one are resolved
// against it. Any writer schema of the registry is used, whatever its
// subject (these are the connector's own topics; commands go through
// Decode). Errors are *DecodeError or *RegistryError.
func (d *Decoder) DecodeRecord(ctx context.Context, value []byte, v Record) error {
	switch f := DetectFormat(value); f {
	case FormatConfluent:
		return d.decodeConfluent(ctx, "", v.SchemaName(), value, v)
	case FormatSingleObject:
		return decodeSingleObject(v.SchemaName(), value, v)
	case FormatJSON:
		return &DecodeError{Format: f, Reason: "JSON where Avro was expected"}
	default:
		return &DecodeError{Format: FormatUnknown, Reason: unknownFormatReason(value)}
	}
}

func unknownFormatReason(value []byte) string {
	if len(value) == 0 {
		return "empty value"
	}
	return fmt.Sprintf("unknown value format: first byte 0x%02x (want 0x00 Confluent, 0xC3 0x01 single-object, or '{' JSON)", value[0])
}

// decodeConfluent decodes a Confluent wire-format value into v, of schema
// name. A non-empty subject requires the writer schema to be registered
// under it.
func (d *Decoder) decodeConfluent(ctx context.Context, subject string, name schemas.Name, value []byte, v Record) error {
	if len(value) < 5 {
		return &DecodeError{Format: FormatConfluent, Reason: "value shorter than the 5-byte header"}
	}
	if d.registry == nil {
		return &DecodeError{Format: FormatConfluent, Reason: "Confluent wire format but no schema registry is configured"}
	}
	id := int(binary.BigEndian.Uint32(value[1:5]))
	writer, err := d.writerSchema(ctx, id)
	if err != nil {
		return err
	}
	if subject != "" {
		if err := d.registeredUnder(ctx, id, subject); err != nil {
			return err
		}
	}
	reader, derr := resolvedReader(d, name, writer, FormatConfluent)
	if derr != nil {
		return derr
	}
	return unmarshal(FormatConfluent, writer, reader, value[5:], v)
}

// writerSchema returns the schema registered under id, fetching it once:
// concurrent callers share one registry request, and a fetched schema is
// kept. An id the registry does not know is refused for RefusalTTL without
// asking again (refused); a failed fetch is not kept, so a later call asks
// again.
func (d *Decoder) writerSchema(ctx context.Context, id int) (*avro.Schema, error) {
	d.mu.Lock()
	s, ok := d.writers[id]
	d.mu.Unlock()
	if ok {
		return s, nil
	}
	if e, ok := d.refusals.Get(usageKey{id: id}, d.now()); ok {
		return nil, e
	}
	v, err, _ := d.fetching.Do(strconv.Itoa(id), func() (any, error) {
		s, err := d.fetchWriter(ctx, id)
		if err == nil {
			d.mu.Lock()
			d.writers[id] = s
			d.mu.Unlock()
		}
		d.refuse(usageKey{id: id}, err)
		return s, err
	})
	if err != nil {
		return nil, err
	}
	return v.(*avro.Schema), nil
}

func (d *Decoder) fetchWriter(ctx context.Context, id int) (*avro.Schema, error) {
	sch, err := d.registry.SchemaByID(ctx, id)
	if err != nil {
		var re *sr.ResponseError
		if errors.As(err, &re) && re.StatusCode == 404 {
			return nil, &DecodeError{Format: FormatConfluent, Reason: fmt.Sprintf("schema id %d not found in the registry", id)}
		}
		return nil, &RegistryError{Op: fmt.Sprintf("fetch schema %d", id), Err: err}
	}
	if sch.Type != sr.TypeAvro {
		return nil, &DecodeError{Format: FormatConfluent, Reason: fmt.Sprintf("schema id %d is %s, not Avro", id, sch.Type)}
	}
	if len(sch.References) > 0 {
		return nil, &DecodeError{Format: FormatConfluent, Reason: fmt.Sprintf("schema id %d uses references, which are not supported", id)}
	}
	s, err := ParseSchema(sch.Schema)
	if err != nil {
		return nil, &DecodeError{Format: FormatConfluent, Reason: fmt.Sprintf("schema id %d does not parse: %v", id, err)}
	}
	d.log.Info("fetched writer schema", slog.Int("schema_id", id), slog.String("name", schemaFullName(s)))
	return s, nil
}

func schemaFullName(s *avro.Schema) string {
	n := s.Root()
	if n.Name != "" {
		return fullName(n)
	}
	return n.Type
}

// resolvedReader returns the schema to decode data written with writer into
// the Go type of schema name: our schema itself when writer is it, else the
// resolution of the two, cached. d nil means the package-wide cache.
func resolvedReader(d *Decoder, name schemas.Name, writer *avro.Schema, f Format) (*avro.Schema, *DecodeError) {
	reader, err := Schema(name)
	if err != nil {
		return nil, &DecodeError{Format: f, Reason: err.Error()}
	}
	key := resolveKey{writer: fingerprint(writer), reader: name}
	if key.writer == fingerprint(reader) {
		return reader, nil
	}
	if d == nil {
		d = defaultResolver
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.resolved[key]; ok {
		return s, nil
	}
	if e, ok := d.failures[key]; ok {
		return nil, &DecodeError{Format: f, Field: e.Field, Reason: e.Reason}
	}
	s, err := avro.Resolve(writer, reader)
	if err != nil {
		e := &DecodeError{Format: f, Reason: fmt.Sprintf("writer schema %s is not compatible with %s: %v", schemaFullName(writer), name, err)}
		var ce *CompatibilityError
		if errors.As(compatibilityError(err), &ce) {
			e.Field = ce.Field
			e.Reason = fmt.Sprintf("writer schema %s is not compatible with %s: %s", schemaFullName(writer), name, ce.Reason)
		}
		d.failures[key] = e
		return nil, e
	}
	d.resolved[key] = s
	return s, nil
}

// defaultResolver caches resolutions of historical single-object schemas.
var defaultResolver = &Decoder{resolved: map[resolveKey]*avro.Schema{}, failures: map[resolveKey]*DecodeError{}}

// unmarshal decodes data, written with writer, into v with schema (writer
// itself or its resolution against v's schema); bytes after the record are
// ignored.
func unmarshal(f Format, writer, schema *avro.Schema, data []byte, v any) error {
	if _, err := schema.Decode(data, v); err != nil {
		field, reason := avroError(err)
		return &DecodeError{Format: f, Field: field, Reason: "malformed Avro data: " + scrub(reason)}
	}
	return checkBooleans(f, writer, data)
}
