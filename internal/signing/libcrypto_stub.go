//go:build !libcrypto

package signing

import (
	"crypto/rsa"
	"errors"
)

const defaultEngine = EngineGo

// nativeKey stands for libcrypto's key in a build without it.
type nativeKey struct{}

func newNativeKey(*rsa.PrivateKey) (*nativeKey, error) {
	return nil, errors.New("not compiled in: build with -tags libcrypto and CGO_ENABLED=1")
}

func (*nativeKey) sign(Padding, []byte) ([]byte, error) {
	return nil, errors.New("libcrypto not compiled in")
}
