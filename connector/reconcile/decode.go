package reconcile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/soe"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/schemas"
)

// StateDecoder decodes a value of the sessions topic.
type StateDecoder interface {
	DecodeSessionState(value []byte) (*codec.SessionState, error)
}

// AvroStateDecoder decodes the session states the connector writes: Avro
// single-object encoding, the Confluent wire format (read with the current
// schema: the connector writes with it) or JSON.
type AvroStateDecoder struct{}

var avroAPI = avro.Config{TagKey: "avro", MaxByteSliceSize: 4 << 20, MaxSliceAllocSize: 1 << 16}.Freeze()

// DecodeSessionState decodes value.
func (AvroStateDecoder) DecodeSessionState(value []byte) (*codec.SessionState, error) {
	var st codec.SessionState
	switch {
	case len(value) == 0:
		return nil, errors.New("session state: empty value")
	case value[0] == '{':
		if err := json.Unmarshal(value, &st); err != nil {
			return nil, fmt.Errorf("session state json: %w", err)
		}
		return &st, nil
	}
	schema, err := codec.Schema(schemas.SessionState)
	if err != nil {
		return nil, fmt.Errorf("session state schema: %w", err)
	}
	var data []byte
	switch {
	case len(value) >= 10 && value[0] == 0xC3 && value[1] == 0x01:
		fp, hfp, err := stateFingerprints()
		if err != nil {
			return nil, fmt.Errorf("session state fingerprint: %w", err)
		}
		if !bytes.Equal(value[2:10], fp[:]) && !bytes.Equal(value[2:10], hfp) {
			return nil, errors.New("session state: unknown schema fingerprint")
		}
		data = value[10:]
	case len(value) >= 5 && value[0] == 0:
		data = value[5:]
	default:
		return nil, errors.New("session state: unknown encoding")
	}
	if err := avroAPI.Unmarshal(schema, data, &st); err != nil {
		return nil, fmt.Errorf("session state avro: %w", err)
	}
	return &st, nil
}

// stateFingerprints returns the session-state schema's fingerprints: the
// spec's and the one hamba's soe.Codec writes. Computed once: a canonical
// form costs more than decoding a record.
func stateFingerprints() ([8]byte, []byte, error) {
	fps := stateFingerprintsOnce()
	return fps.spec, fps.hamba, fps.err
}

var stateFingerprintsOnce = sync.OnceValue(func() (fps struct {
	spec  [8]byte
	hamba []byte
	err   error
}) {
	schema, err := codec.Schema(schemas.SessionState)
	if err != nil {
		fps.err = err
		return fps
	}
	fps.spec = codec.Fingerprint(schema)
	fps.hamba, fps.err = soe.ComputeFingerprint(schema)
	return fps
})

// CodecStateDecoder decodes session states with a codec.Decoder: with a
// registry, Confluent values are read with the schema their id names (so
// states written by an older or newer connector decode), single-object
// values by their fingerprint; JSON values (tests) with encoding/json.
type CodecStateDecoder struct{ Decoder *codec.Decoder }

// DecodeSessionState decodes value.
func (d CodecStateDecoder) DecodeSessionState(value []byte) (*codec.SessionState, error) {
	var st codec.SessionState
	if len(value) > 0 && value[0] == '{' {
		if err := json.Unmarshal(value, &st); err != nil {
			return nil, fmt.Errorf("session state json: %w", err)
		}
		return &st, nil
	}
	if err := d.Decoder.DecodeRecord(context.Background(), value, &st); err != nil {
		return nil, fmt.Errorf("session state: %w", err)
	}
	return &st, nil
}
