// Package signing holds the RSA primitives shared by both ends of the wire:
// the API client signs request bodies and verifies webhooks with them, and
// the sandbox verifies requests and signs webhooks with them.
//
// A signature is RSA over the SHA-256 digest of the exact body bytes, Base64
// (standard alphabet, padded) as carried in X-PARTNER-SIGN. PKCS#1 v1.5 is the
// default padding; PSS can be selected. Keys load from PEM (PKCS#1 or PKCS#8
// private keys, PKIX or PKCS#1 public keys).
//
// The private-key operation runs on an Engine chosen by the build: crypto/rsa
// in the default static build, the system's OpenSSL 3 libcrypto (cgo, about
// four times the signatures per core) in a build with -tags libcrypto.
// Verification is crypto/rsa in both. A Gate bounds how many signatures
// run at once across the signers it limits, so that signing never holds
// every processor of the process (gate.go says why).
//
// Nothing here logs, and no error carries key material.
package signing
