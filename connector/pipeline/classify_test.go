package pipeline

import (
	"errors"
	"fmt"
	"testing"

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
		want      Status
		code      string
	}{
		{"ok", nil, false, false, StatusAccepted, ""},
		{"invalid request", apiErr("invalid_request", false, true), false, true, StatusRejected, "invalid_request"},
		{"params mismatch", apiErr("idempotency_key_params_mismatch", false, true), false, true, StatusRejected, "idempotency_key_params_mismatch"},
		{"not found", apiErr("repository_record_not_found", false, true), false, true, StatusRejected, "repository_record_not_found"},
		{"5xx exhausted", apiErr("http_status", true, true), true, true, StatusIndeterminate, "http_status"},
		{"transport never sent", apiErr("transport", true, false), true, false, StatusRejected, "transport"},
		{"unsent last but sent before", apiErr("transport", true, false), true, true, StatusIndeterminate, "transport"},
		{"malformed answer", apiErr("malformed_response", false, true), false, true, StatusIndeterminate, "malformed_response"},
		{"client key check", apiErr("invalid_idempotency_key", false, false), false, false, StatusInvalid, "invalid_idempotency_key"},
		{"decode", &invalidError{Code: "decode_error", Field: "amount", Err: errors.New("bad")}, false, false, StatusInvalid, "decode_error"},
		{"unknown error sent", errors.New("boom"), false, true, StatusIndeterminate, "internal"},
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
