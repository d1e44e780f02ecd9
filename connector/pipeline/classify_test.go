package pipeline

import (
	"errors"
	"fmt"
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

func TestClassify(t *testing.T) {
	apiErr := func(code string, retryable, sent bool) error {
		return fmt.Errorf("capture: %w", &payapi.Error{Code: code, Description: code + " text", Retryable: retryable, Sent: sent})
	}
	tests := []struct {
		name      string
		err       error
		exhausted bool
		sent      bool
		want      codec.CommandStatus
		code      string
	}{
		{"ok", nil, false, false, codec.StatusAccepted, ""},
		{"invalid request", apiErr("invalid_request", false, true), false, true, codec.StatusRejected, "invalid_request"},
		{"params mismatch", apiErr("idempotency_key_params_mismatch", false, true), false, true, codec.StatusRejected, "idempotency_key_params_mismatch"},
		{"not found", apiErr("repository_record_not_found", false, true), false, true, codec.StatusRejected, "repository_record_not_found"},
		{"5xx exhausted", apiErr("http_status", true, true), true, true, codec.StatusIndeterminate, "http_status"},
		{"transport never sent", apiErr("transport", true, false), true, false, codec.StatusRejected, "transport"},
		{"unsent last but sent before", apiErr("transport", true, false), true, true, codec.StatusIndeterminate, "transport"},
		{"malformed answer", apiErr("malformed_response", false, true), false, true, codec.StatusIndeterminate, "malformed_response"},
		{"client key check", apiErr("invalid_idempotency_key", false, false), false, false, codec.StatusInvalid, "invalid_idempotency_key"},
		{"project with no key", apiErr("unknown_project", false, false), false, false, codec.StatusInvalid, "unknown_project"},
		{"decode", &invalidError{Code: "decode_error", Field: "amount", Err: errors.New("bad")}, false, false, codec.StatusInvalid, "decode_error"},
		{"unknown error sent", errors.New("boom"), false, true, codec.StatusIndeterminate, "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := classify(tt.err, tt.exhausted, tt.sent)
			if v.Status != tt.want || v.Code != tt.code {
				t.Fatalf("classify = %s/%s, want %s/%s", v.Status, v.Code, tt.want, tt.code)
			}
		})
	}
}
