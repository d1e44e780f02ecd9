package kit

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/schemas"
)

// DecoderConfig configures a Decoder.
type DecoderConfig struct {
	// Registry resolves the writer schemas of Confluent wire-format values
	// (the connector writes outcomes so when PAYSESSION_REGISTRY_URL is
	// set). Optional: without it only single-object values decode.
	Registry *sr.Client
}

// Validate reports configuration problems (none today; kept for the
// constructor convention).
func (c DecoderConfig) Validate() error { return nil }

// Decoder decodes outcome records (and commands) in every Avro form the
// connector writes. It is safe for concurrent use; writer schemas are
// fetched from the registry once.
type Decoder struct {
	reg *sr.Client
	dec *codec.Decoder

	mu    sync.Mutex
	names map[int]SchemaName // registry id -> our schema of that full name
}

// NewDecoder returns a Decoder.
func NewDecoder(cfg DecoderConfig) (*Decoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kit decoder: %w", err)
	}
	dec, err := codec.NewDecoder(codec.DecoderConfig{Registry: cfg.Registry})
	if err != nil {
		return nil, err
	}
	return &Decoder{reg: cfg.Registry, dec: dec, names: map[int]SchemaName{}}, nil
}

// Decode decodes an Avro value (Confluent wire format or single-object
// encoding) into v, a pointer to an outcome or command type of this package:
//
//	var r kit.CommandResult
//	err := dec.Decode(ctx, record.Value, &r)
//
// Values written with an older or newer compatible schema are resolved
// against v's schema. Errors are *DecodeError or *RegistryError.
func (d *Decoder) Decode(ctx context.Context, value []byte, v Record) error {
	return d.dec.DecodeRecord(ctx, value, v)
}

// DecodeAny decodes an outcome value whose schema is not known in advance
// (a record of any outcome topic) and returns a pointer to its type:
// *CommandResult, *SessionState, *WebhookEvent, *DeadLetter,
// *WalletBalance or *FPSBanks. The schema is told by the value itself: the
// single-object fingerprint, or the writer schema's name in the registry.
func (d *Decoder) DecodeAny(ctx context.Context, value []byte) (Record, error) {
	if len(value) >= 5 && value[0] == 0 && d.reg != nil {
		n, err := d.nameOf(ctx, int(binary.BigEndian.Uint32(value[1:5])))
		if err != nil {
			return nil, err
		}
		return d.DecodeAs(ctx, n, value)
	}
	var first error
	for _, n := range schemas.Outcomes {
		r, err := d.DecodeAs(ctx, n, value)
		if err == nil {
			return r, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// DecodeAs decodes value as schema n (see Topics.Schema) and returns a
// pointer to the type of n.
func (d *Decoder) DecodeAs(ctx context.Context, n SchemaName, value []byte) (Record, error) {
	v := newRecord(n)
	if v == nil {
		return nil, fmt.Errorf("unknown schema %q", n)
	}
	if err := d.dec.DecodeRecord(ctx, value, v); err != nil {
		return nil, err
	}
	return v, nil
}

// nameOf returns our schema whose full name is that of the writer schema
// registered under id.
func (d *Decoder) nameOf(ctx context.Context, id int) (SchemaName, error) {
	d.mu.Lock()
	n, ok := d.names[id]
	d.mu.Unlock()
	if ok {
		return n, nil
	}
	s, err := d.reg.SchemaByID(ctx, id)
	if err != nil {
		return "", &RegistryError{Op: fmt.Sprintf("fetch schema %d", id), Err: err}
	}
	full, err := fullName(s.Schema)
	if err != nil {
		return "", &DecodeError{Format: codec.FormatConfluent, Reason: fmt.Sprintf("schema id %d: %v", id, err)}
	}
	for _, cand := range schemas.All() {
		if f, err := fullName(schemas.MustGet(cand)); err == nil && f == full {
			d.mu.Lock()
			d.names[id] = cand
			d.mu.Unlock()
			return cand, nil
		}
	}
	return "", &DecodeError{Format: codec.FormatConfluent, Reason: fmt.Sprintf("schema id %d is %s, not a paysession schema", id, full)}
}

func fullName(text string) (string, error) {
	var s struct{ Name, Namespace string }
	if err := json.Unmarshal([]byte(text), &s); err != nil || s.Name == "" {
		return "", fmt.Errorf("not an Avro record schema")
	}
	if s.Namespace == "" {
		return s.Name, nil
	}
	return s.Namespace + "." + s.Name, nil
}

// newRecord returns a new zero value of the type of schema n.
func newRecord(n SchemaName) Record {
	switch n {
	case schemas.CommandResult:
		return &CommandResult{}
	case schemas.SessionState:
		return &SessionState{}
	case schemas.WebhookEvent:
		return &WebhookEvent{}
	case schemas.DeadLetter:
		return &DeadLetter{}
	case schemas.WalletBalance:
		return &WalletBalance{}
	case schemas.FPSBanks:
		return &FPSBanks{}
	}
	if c := codec.CommandKind(n).New(); c != nil {
		return c
	}
	return nil
}

// ParseJSON reads one strict-JSON command of kind (member names equal to the
// .avsc field names, no unknown or duplicate members) and validates it, as
// the connector will.
func ParseJSON(kind CommandKind, data []byte) (Command, error) {
	if f := codec.DetectFormat(data); f != codec.FormatJSON {
		return nil, &DecodeError{Format: f, Reason: "not a JSON object"}
	}
	cmd, err := jsonDecoder().Decode(context.Background(), kind.DefaultTopic(), kind, data)
	if err != nil {
		return nil, err
	}
	if err := cmd.Validate(); err != nil {
		return nil, err
	}
	return cmd, nil
}

var jsonDecoder = sync.OnceValue(func() *codec.Decoder {
	d, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		panic(fmt.Sprintf("kit: schemas do not load: %v", err))
	}
	return d
})
