package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// Decoder decodes a command record's value (Confluent, single-object Avro or
// JSON, by first byte) read from topic into a command of the given kind; a
// Confluent value's writer schema must be registered under the topic's value
// subject. It returns a *codec.DecodeError for values that can never decode
// and a *codec.RegistryError for transient registry failures.
// It does not validate. *codec.Decoder implements it.
type Decoder interface {
	Decode(ctx context.Context, topic string, kind codec.CommandKind, value []byte) (codec.Command, error)
}

// command is a decoded, validated command ready to call the API.
type command struct {
	Kind      string
	Endpoint  string // API method, e.g. session/capture
	SessionID string // empty when the command names no session (it creates one)
	// request is the API call, a value (request.go); send sends it.
	request request
	// answersSession: the API's answer normally holds the session (the spec
	// marks it optional: an answer without one is accepted, state unknown).
	answersSession bool
	// route are the call options of the command's project and submerchant:
	// a settling status query of its session goes under the same project.
	route []payapi.CallOption
	// project is the partner project the command names ("" = the default
	// project): the session states it learns name it.
	project string
}

// invalidError says why a record is invalid: it is never sent, goes to the
// dead-letter topic and gets an invalid result.
type invalidError struct {
	Code  string // decode_error, validation_error, invalid_key, unknown_kind
	Field string // field path when known
	Rule  string
	Err   error
}

// send sends the command's request with opts (its key and trace context)
// and the options of its route.
func (c *command) send(ctx context.Context, api API, opts ...payapi.CallOption) (answer, error) {
	return send(ctx, api, c.request, append(opts[:len(opts):len(opts)], c.route...)...)
}

func (e *invalidError) Error() string { return e.Err.Error() }

func (e *invalidError) Unwrap() error { return e.Err }

// transientError is a decoding failure that may pass later (schema registry
// unreachable): the command is parked, not dead-lettered.
type transientError struct{ Err error }

func (e *transientError) Error() string { return e.Err.Error() }
func (e *transientError) Unwrap() error { return e.Err }

// read turns a polled record into the command it asks for, once, as it is
// polled (its session id decides its lane): key check → kind → decode →
// validate → map to an API call. It sets in.cmd, or in.decodeErr: an
// *invalidError (never sent, dead-lettered) or a *transientError (schema
// registry unreachable: parked). ctx bounds the registry lookups.
func (p *Pipeline) read(ctx context.Context, in *inbound) {
	ctx, span := startDecodeSpan(ctx, in)
	in.cmd, in.decodeErr = p.commandOf(ctx, in)
	endDecodeSpan(span, in.cmd, in.decodeErr)
}

func (p *Pipeline) commandOf(ctx context.Context, in *inbound) (*command, error) {
	if err := codec.ValidateIdempotencyKey(in.key); err != nil { // key check
		return nil, &invalidError{Code: "invalid_key", Field: "key", Rule: ruleOf(err), Err: err}
	}
	kind, err := codec.ParseKind(in.kind) // kind
	if err != nil {
		return nil, &invalidError{Code: "unknown_kind", Err: err}
	}
	c, err := p.cfg.Decoder.Decode(ctx, in.rec.Topic, kind, in.rec.Value) // decode
	var re *codec.RegistryError
	var de *codec.DecodeError
	switch {
	case errors.As(err, &re):
		return nil, &transientError{Err: err}
	case errors.As(err, &de):
		return nil, &invalidError{Code: "decode_error", Field: de.Field, Err: err}
	case err != nil:
		return nil, &invalidError{Code: "decode_error", Err: err}
	}
	if c.Kind() != kind {
		return nil, &invalidError{Code: "unknown_kind", Err: fmt.Errorf("record of kind %s on the %s topic", c.Kind(), kind)}
	}
	if err := c.Validate(); err != nil { // validate
		var ve *codec.ValidationError
		inv := &invalidError{Code: "validation_error", Err: err}
		if errors.As(err, &ve) {
			inv.Field, inv.Rule = ve.Field, ve.Rule
		}
		return nil, inv
	}
	cmd, err := toCommand(c) // map
	if err != nil {
		return nil, &invalidError{Code: "unknown_kind", Err: err}
	}
	return cmd, nil
}

func ruleOf(err error) string {
	var ve *codec.ValidationError
	if errors.As(err, &ve) {
		return ve.Rule
	}
	return ""
}
