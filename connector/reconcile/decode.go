package reconcile

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paysession/paysession/internal/codec"
)

// StateDecoder decodes a value of the sessions topic.
type StateDecoder interface {
	DecodeSessionState(value []byte) (*codec.SessionState, error)
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
