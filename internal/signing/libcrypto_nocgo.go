//go:build libcrypto && !cgo

package signing

// The libcrypto engine is cgo: without it the build would silently sign
// with crypto/rsa, so it fails here instead.
var _ = build_tag_libcrypto_needs_CGO_ENABLED_1
