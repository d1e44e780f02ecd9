package signing

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// ParsePrivateKeyPEM parses the first PEM block of data as an RSA private
// key in PKCS#1 ("RSA PRIVATE KEY") or PKCS#8 ("PRIVATE KEY") form.
func ParsePrivateKeyPEM(data []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("private key: no PEM block found")
	}
	switch block.Type {
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("private key: invalid PKCS#1 RSA key")
		}
		return k, nil
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("private key: invalid PKCS#8 key")
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("private key: PKCS#8 key is %T, want RSA", k)
		}
		return rk, nil
	}
	return nil, fmt.Errorf("private key: unsupported PEM block %q", block.Type)
}

// ParsePublicKeyPEM parses the first PEM block of data as an RSA public key
// in PKIX ("PUBLIC KEY") or PKCS#1 ("RSA PUBLIC KEY") form.
func ParsePublicKeyPEM(data []byte) (*rsa.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("public key: no PEM block found")
	}
	switch block.Type {
	case "RSA PUBLIC KEY":
		k, err := x509.ParsePKCS1PublicKey(block.Bytes)
		if err != nil {
			return nil, errors.New("public key: invalid PKCS#1 RSA key")
		}
		return k, nil
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, errors.New("public key: invalid PKIX key")
		}
		rk, ok := k.(*rsa.PublicKey)
		if !ok {
			return nil, fmt.Errorf("public key: PKIX key is %T, want RSA", k)
		}
		return rk, nil
	}
	return nil, fmt.Errorf("public key: unsupported PEM block %q", block.Type)
}

// LoadPrivateKey reads and parses a PEM private key file.
func LoadPrivateKey(path string) (*rsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("private key file: %w", err)
	}
	k, err := ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// LoadPublicKey reads and parses a PEM public key file.
func LoadPublicKey(path string) (*rsa.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("public key file: %w", err)
	}
	k, err := ParsePublicKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// GenerateKey makes a new RSA key; tests and the sandbox's dev mode use it
// so that no key is ever committed.
func GenerateKey(bits int) (*rsa.PrivateKey, error) {
	return rsa.GenerateKey(rand.Reader, bits)
}

// EncodePrivateKeyPEM encodes k as PKCS#8 PEM.
func EncodePrivateKeyPEM(k *rsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// EncodePublicKeyPEM encodes k as PKIX PEM.
func EncodePublicKeyPEM(k *rsa.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// WriteKeyPair writes k as PKCS#8 private and PKIX public PEM files
// (private 0600, public 0644).
func WriteKeyPair(k *rsa.PrivateKey, privatePath, publicPath string) error {
	priv, err := EncodePrivateKeyPEM(k)
	if err != nil {
		return err
	}
	pub, err := EncodePublicKeyPEM(&k.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(privatePath, priv, 0o600); err != nil {
		return err
	}
	return os.WriteFile(publicPath, pub, 0o644)
}
