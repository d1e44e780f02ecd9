package paysim

import "net/http"

// API error codes. The first five are the spec's; the rest are the
// sandbox's choice where the spec says "not shown".
const (
	CodeInvalidRequest        = "invalid_request"
	CodeRecordNotFound        = "repository_record_not_found"
	CodeIdempotencyMismatch   = "idempotency_key_params_mismatch"
	CodeIdempotencyInProgress = "idempotency_key_already_exists"
	CodeIdempotencyNotSupport = "idempotency_key_not_supported"
	CodeUnauthorized          = "unauthorized" // HTTP 401: unknown project, bad signature
	CodeForbidden             = "forbidden"    // HTTP 403: feature not enabled for the project
	CodeNotFound              = "not_found"    // HTTP 404: unknown method path (or v1-only method under v2)
	CodeMethodNotAllowed      = "method_not_allowed"
	CodeInternal              = "internal_error" // HTTP 500: injected fault, nothing executed
)

// genericNotFound is the "generic internal-error text" of repository_record_not_found.
const genericNotFound = "internal error"

// apiError is a failed call as the envelope shows it.
type apiError struct {
	HTTP        int
	Code        string
	Description string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Description }

// invalid is invalid_request with the description "<field path>.<rule>".
func invalid(path, rule string) *apiError {
	return &apiError{HTTP: http.StatusBadRequest, Code: CodeInvalidRequest, Description: path + "." + rule}
}

func recordNotFound() *apiError {
	return &apiError{HTTP: http.StatusNotFound, Code: CodeRecordNotFound, Description: genericNotFound}
}

func unauthorized(desc string) *apiError {
	return &apiError{HTTP: http.StatusUnauthorized, Code: CodeUnauthorized, Description: desc}
}
