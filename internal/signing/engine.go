package signing

import (
	"crypto/rsa"
	"fmt"
)

// Engine names the implementation of the RSA private-key operation behind
// an RSASigner. Verification always uses crypto/rsa: with e = 65537 it is
// cheap, and signing is what bounds commands per second.
type Engine string

const (
	// EngineGo is crypto/rsa: always compiled in, and the engine of the
	// default static build.
	EngineGo Engine = "go"
	// EngineLibcrypto is the system's OpenSSL 3 libcrypto, called through
	// cgo: compiled in only by `go build -tags libcrypto` with
	// CGO_ENABLED=1, and then the engine of NewRSASigner.
	EngineLibcrypto Engine = "libcrypto"
)

// DefaultEngine is the engine NewRSASigner uses: EngineLibcrypto in a
// binary built with -tags libcrypto, else EngineGo. The build, not the
// environment, chooses it, so a static image can never try to load
// libcrypto.
const DefaultEngine = defaultEngine

// Engines returns the engines compiled into this binary, the default first.
func Engines() []Engine {
	if DefaultEngine == EngineGo {
		return []Engine{EngineGo}
	}
	return []Engine{DefaultEngine, EngineGo}
}

// NewRSASignerWith returns a signer for key with the given padding whose
// private-key operation runs on engine; it fails when engine is not
// compiled in or cannot hold key.
func NewRSASignerWith(engine Engine, key *rsa.PrivateKey, padding Padding) (*RSASigner, error) {
	s := &RSASigner{key: key, padding: padding, engine: EngineGo}
	switch engine {
	case EngineGo:
		return s, nil
	case EngineLibcrypto:
		native, err := newNativeKey(key)
		if err != nil {
			return nil, fmt.Errorf("signer engine %s: %w", engine, err)
		}
		s.native, s.engine = native, engine
		return s, nil
	}
	return nil, fmt.Errorf("signer engine %q: want one of %v", engine, Engines())
}
