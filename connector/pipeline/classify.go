package pipeline

import (
	"errors"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// verdict is the classification of a finished call.
type verdict struct {
	Status      codec.CommandStatus
	Code        string
	Description string
	Field       string
	Rule        string
	// deadLetter: the command record also goes to the dead-letter topic
	// (every invalid command, and one rejected because it could not be
	// decoded).
	deadLetter bool
}

// clientCodes are payapi error codes raised by the client, not by the
// service: a sent request that ends with one of them has an unknown effect.
var clientCodes = map[string]bool{
	"transport": true, "timeout": true, "http_status": true, "malformed_response": true,
}

// classify maps the last error of a command's calls to its final status.
// err is nil when the service accepted the command; exhausted says the retry
// budget ran out; sent says some attempt may have reached the service. An
// ambiguous outcome is never guessed: it is indeterminate.
func classify(err error, exhausted, sent bool) verdict {
	if err == nil {
		return verdict{Status: codec.StatusAccepted}
	}
	var inv *invalidError
	if errors.As(err, &inv) {
		return verdict{Status: codec.StatusInvalid, Code: inv.Code, Field: inv.Field, Rule: inv.Rule, Description: inv.Error(), deadLetter: true}
	}
	var ae *payapi.Error
	if !errors.As(err, &ae) {
		v := verdict{Status: codec.StatusRejected, Code: "internal", Description: err.Error()}
		if sent {
			v.Status = codec.StatusIndeterminate
		}
		return v
	}
	v := verdict{Code: ae.Code, Description: ae.Description, Field: ae.Field, Rule: ae.Rule}
	switch {
	case ae.Code == payapi.CodeInvalidIdempotencyKey || ae.Code == payapi.CodeUnknownProject:
		// Refused by the client before sending: the command itself is at
		// fault (a key the service would refuse, a project with no key).
		v.Status, v.deadLetter = codec.StatusInvalid, true
	case exhausted || ae.Retryable:
		// Out of budget: if any attempt may have reached the service the
		// effect is unknown, otherwise the command never got there.
		v.Status = codec.StatusRejected
		if sent || ae.Sent {
			v.Status = codec.StatusIndeterminate
		}
	case clientCodes[ae.Code] && (sent || ae.Sent):
		v.Status = codec.StatusIndeterminate
	default:
		v.Status = codec.StatusRejected
	}
	if v.Description == "" {
		v.Description = ae.Code
	}
	return v
}
