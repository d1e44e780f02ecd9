package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hamba/avro/v2"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/schemas"
)

// StateDecoder decodes a value of the sessions topic.
type StateDecoder interface {
	DecodeSessionState(value []byte) (*codec.SessionState, error)
}

// AvroStateDecoder decodes the session states the connector writes without
// a registry at hand: Avro single-object encoding (codec.DecodeSingleObject:
// the writer schema by its fingerprint), the Confluent wire format (read
// with the current schema: the connector writes with it) or JSON.
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
	switch codec.DetectFormat(value) {
	case codec.FormatSingleObject:
		if err := codec.DecodeSingleObject(value, &st); err != nil {
			return nil, fmt.Errorf("session state: %w", err)
		}
	case codec.FormatConfluent:
		if len(value) < 5 {
			return nil, errors.New("session state: unknown encoding")
		}
		schema, err := codec.Schema(schemas.SessionState)
		if err != nil {
			return nil, fmt.Errorf("session state schema: %w", err)
		}
		if err := avroAPI.Unmarshal(schema, value[5:], &st); err != nil {
			return nil, fmt.Errorf("session state avro: %w", err)
		}
	default:
		return nil, errors.New("session state: unknown encoding")
	}
	return &st, nil
}

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
