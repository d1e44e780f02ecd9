package paysim

import (
	"errors"
	"mime"
	"net/http"

	"github.com/paysession/paysession/internal/signing"
)

// Request headers of the spec.
const (
	HeaderProject     = "X-PARTNER-PROJECT"
	HeaderSign        = "X-PARTNER-SIGN"
	HeaderSubmerchant = "X-PARTNER-SUBMERCHANT"
	HeaderIdempotency = "X-PARTNER-IDEMPOTENCY-KEY"
)

// authenticate checks the required headers, the project and the signature
// over the raw body. Statuses:
//
//	missing Content-Type/X-PARTNER-PROJECT/X-PARTNER-SIGN  400 invalid_request "headers.<Name>.blank"
//	Content-Type not JSON                                  415 invalid_request "headers.Content-Type.inclusion"
//	unknown project                                        401 unauthorized "headers.X-PARTNER-PROJECT.unknown"
//	signature does not verify                              401 unauthorized "headers.X-PARTNER-SIGN.invalid"
func (s *Server) authenticate(r *http.Request, body []byte) (*projectState, error) {
	ct := r.Header.Get("Content-Type")
	for _, h := range []string{"Content-Type", HeaderProject, HeaderSign} {
		if r.Header.Get(h) == "" {
			return nil, invalid("headers."+h, "blank")
		}
	}
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		e := invalid("headers.Content-Type", "inclusion")
		e.HTTP = http.StatusUnsupportedMediaType
		return nil, e
	}
	p := s.projects[r.Header.Get(HeaderProject)]
	if p == nil {
		return nil, unauthorized("headers." + HeaderProject + ".unknown")
	}
	if err := p.verifier.Verify(body, r.Header.Get(HeaderSign)); err != nil {
		if !errors.Is(err, signing.ErrBadSignature) {
			s.log.Warn("paysim verify", "error", err)
		}
		return nil, unauthorized("headers." + HeaderSign + ".invalid")
	}
	return p, nil
}

// checkIdempotencyKey validates X-PARTNER-IDEMPOTENCY-KEY: 4..64 printable
// ASCII characters (0x21..0x7E).
func checkIdempotencyKey(key string) error {
	if len(key) < 4 || len(key) > 64 {
		return invalid("headers."+HeaderIdempotency, "length")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return invalid("headers."+HeaderIdempotency, "format")
		}
	}
	return nil
}
