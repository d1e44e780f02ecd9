package ingress

import (
	"encoding/base64"
	"errors"
	"net/http"
)

// HeaderSignature carries the service's signature of a webhook body: RSA,
// SHA-256, Base64 (the spec's Authentication section, rule 4).
const HeaderSignature = "X-PARTNER-SIGN"

// RSA signatures are as long as the key's modulus: 1024 bits (the least
// crypto/rsa accepts) to 8192 bits.
const (
	minSignatureBytes = 1024 / 8
	maxSignatureBytes = 8192 / 8
)

var (
	errNoSignature       = errors.New("no " + HeaderSignature + " header")
	errManySignatures    = errors.New("more than one " + HeaderSignature + " header")
	errSignatureEncoding = errors.New(HeaderSignature + " is not standard Base64")
	errSignatureLength   = errors.New(HeaderSignature + " is not the length of an RSA signature")
)

// maxSignatureBase64Len is the Base64 length of the longest signature.
var maxSignatureBase64Len = base64.StdEncoding.EncodedLen(maxSignatureBytes)

// signatureShape checks, before the body is read, that the request carries
// exactly one signature that could be an RSA signature: standard Base64 of
// 128 to 1024 bytes. A request that fails it is refused without reading its
// body, so unsigned traffic costs no memory; one that passes still has its
// signature verified over the body.
func signatureShape(h http.Header) (string, error) {
	values := h.Values(HeaderSignature)
	switch {
	case len(values) == 0 || values[0] == "":
		return "", errNoSignature
	case len(values) > 1:
		return "", errManySignatures
	}
	sig := values[0]
	if len(sig) > maxSignatureBase64Len {
		return "", errSignatureLength
	}
	var buf [maxSignatureBytes + 2]byte // DecodedLen of the longest accepted text
	n, err := base64.StdEncoding.Decode(buf[:], []byte(sig))
	if err != nil {
		return "", errSignatureEncoding
	}
	if n < minSignatureBytes || n > maxSignatureBytes {
		return "", errSignatureLength
	}
	return sig, nil
}
