package signing

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
)

// Padding selects the RSA signature scheme.
type Padding int

const (
	// PKCS1v15 is RSASSA-PKCS1-v1_5, the default.
	PKCS1v15 Padding = iota
	// PSS is RSASSA-PSS with MGF1-SHA-256; signatures use a salt as long as
	// the digest, verification accepts any salt length.
	PSS
)

// ParsePadding maps a configuration value ("pkcs1v15", "pss"; empty means
// pkcs1v15) to a Padding.
func ParsePadding(s string) (Padding, error) {
	switch s {
	case "", "pkcs1v15", "pkcs1", "PKCS1v15":
		return PKCS1v15, nil
	case "pss", "PSS":
		return PSS, nil
	}
	return 0, fmt.Errorf("signature padding %q: want pkcs1v15 or pss", s)
}

// String returns the configuration spelling of p.
func (p Padding) String() string {
	if p == PSS {
		return "pss"
	}
	return "pkcs1v15"
}

// ErrBadSignature reports a signature that does not verify under any key.
var ErrBadSignature = errors.New("signature does not verify")

// Signer signs a request or webhook body and returns the header value.
// Implementations backed by a KMS or HSM can replace RSASigner.
type Signer interface {
	Sign(body []byte) (string, error)
}

// Verifier checks a header value against a body.
type Verifier interface {
	Verify(body []byte, signature string) error
}

// RSASigner signs with an in-memory RSA private key, on the engine chosen
// when it was made (see Engine).
type RSASigner struct {
	key     *rsa.PrivateKey
	padding Padding
	engine  Engine
	native  *nativeKey // the key in libcrypto, with EngineLibcrypto
	err     error      // why the engine could not take the key: every Sign returns it
}

// NewRSASigner returns a signer for key with the given padding on
// DefaultEngine. Should that engine refuse the key (libcrypto accepts every
// key crypto/rsa parses), every Sign returns the reason.
func NewRSASigner(key *rsa.PrivateKey, padding Padding) *RSASigner {
	s, err := NewRSASignerWith(DefaultEngine, key, padding)
	if err != nil {
		return &RSASigner{key: key, padding: padding, engine: DefaultEngine, err: err}
	}
	return s
}

// Engine returns the engine of s's private-key operation.
func (s *RSASigner) Engine() Engine { return s.engine }

// Sign returns the Base64 signature of SHA-256(body).
func (s *RSASigner) Sign(body []byte) (string, error) {
	if s.err != nil {
		return "", fmt.Errorf("sign: %w", s.err)
	}
	digest := sha256.Sum256(body)
	var (
		sig []byte
		err error
	)
	switch {
	case s.native != nil:
		sig, err = s.native.sign(s.padding, digest[:])
	case s.padding == PSS:
		sig, err = rsa.SignPSS(rand.Reader, s.key, crypto.SHA256, digest[:],
			&rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	default:
		sig, err = rsa.SignPKCS1v15(nil, s.key, crypto.SHA256, digest[:])
	}
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// Public returns the public half of the signing key.
func (s *RSASigner) Public() *rsa.PublicKey { return &s.key.PublicKey }

// String never prints key material.
func (s *RSASigner) String() string {
	return "RSASigner(" + s.padding.String() + ", " + string(s.engine) + ", key redacted)"
}

// LogValue never logs key material.
func (s *RSASigner) LogValue() slog.Value { return slog.StringValue(s.String()) }

// RSAVerifier accepts a signature made by any of its keys, so a key can be
// rotated by configuring old and new keys side by side.
type RSAVerifier struct {
	keys    []*rsa.PublicKey
	padding Padding
}

// NewRSAVerifier returns a verifier that accepts signatures of any of keys.
func NewRSAVerifier(padding Padding, keys ...*rsa.PublicKey) *RSAVerifier {
	return &RSAVerifier{keys: keys, padding: padding}
}

// Verify checks the Base64 signature of SHA-256(body) against every key.
func (v *RSAVerifier) Verify(body []byte, signature string) error {
	if signature == "" {
		return fmt.Errorf("%w: empty signature", ErrBadSignature)
	}
	sig, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return fmt.Errorf("%w: signature is not base64", ErrBadSignature)
	}
	digest := sha256.Sum256(body)
	for _, k := range v.keys {
		if verifyOne(k, v.padding, digest[:], sig) == nil {
			return nil
		}
	}
	return ErrBadSignature
}

func verifyOne(k *rsa.PublicKey, p Padding, digest, sig []byte) error {
	if p == PSS {
		return rsa.VerifyPSS(k, crypto.SHA256, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthAuto})
	}
	return rsa.VerifyPKCS1v15(k, crypto.SHA256, digest, sig)
}
