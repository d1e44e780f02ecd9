//go:build libcrypto && cgo

package signing

/*
#cgo LDFLAGS: -lcrypto
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
#include <stdlib.h>

// ps_error moves the oldest error of this thread's queue into buf and clears
// the rest: called in the same C call that failed, since the queue is per thread.
static void ps_error(char *buf, size_t len) {
	unsigned long e = ERR_get_error();
	if (e == 0) {
		buf[0] = 0;
	} else {
		ERR_error_string_n(e, buf, len);
	}
	ERR_clear_error();
}

// ps_import reads a PKCS#1 DER RSA private key; NULL on failure.
static EVP_PKEY *ps_import(const unsigned char *der, long len, char *err, size_t errlen) {
	const unsigned char *p = der;
	EVP_PKEY *key = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, len);
	if (key == NULL) {
		ps_error(err, errlen);
	}
	return key;
}

// ps_sign signs a SHA-256 digest with key: PKCS#1 v1.5, or PSS with MGF1-SHA-256
// and a salt as long as the digest. It returns 1 on success, leaving the length
// in *siglen, else 0 with OpenSSL's reason in err.
static int ps_sign(EVP_PKEY *key, int pss, const unsigned char *digest, unsigned char *sig, size_t *siglen,
                   char *err, size_t errlen) {
	int ok = 0;
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
	if (ctx == NULL || EVP_PKEY_sign_init(ctx) <= 0 || EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) <= 0) {
		goto done;
	}
	if (pss && (EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) <= 0 ||
	            EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, RSA_PSS_SALTLEN_DIGEST) <= 0 ||
	            EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha256()) <= 0)) {
		goto done;
	}
	ok = EVP_PKEY_sign(ctx, sig, siglen, digest, 32) > 0;
done:
	if (!ok) {
		ps_error(err, errlen);
	}
	EVP_PKEY_CTX_free(ctx);
	return ok;
}
*/
import "C"

import (
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"runtime"
	"unsafe"
)

const defaultEngine = EngineLibcrypto

// nativeKey is an RSA private key held by libcrypto (an EVP_PKEY), freed
// when the nativeKey is collected.
type nativeKey struct {
	pkey *C.EVP_PKEY
	size int // modulus length in bytes: the signature length
}

// newNativeKey copies key into libcrypto; the DER copy made on the way is
// zeroed before returning.
func newNativeKey(key *rsa.PrivateKey) (*nativeKey, error) {
	der := x509.MarshalPKCS1PrivateKey(key)
	defer clear(der)
	cder := C.CBytes(der)
	defer func() {
		clear(unsafe.Slice((*byte)(cder), len(der)))
		C.free(cder)
	}()
	var msg errBuf
	pkey := C.ps_import((*C.uchar)(cder), C.long(len(der)), &msg[0], C.size_t(len(msg)))
	if pkey == nil {
		return nil, errors.New("libcrypto: import RSA key: " + msg.String())
	}
	k := &nativeKey{pkey: pkey, size: key.Size()}
	runtime.AddCleanup(k, func(p *C.EVP_PKEY) { C.EVP_PKEY_free(p) }, pkey)
	return k, nil
}

// sign signs a SHA-256 digest. Safe for concurrent use: each call has its
// own libcrypto context over the shared, read-only key.
func (k *nativeKey) sign(p Padding, digest []byte) ([]byte, error) {
	sig := make([]byte, k.size)
	n := C.size_t(len(sig))
	pss := C.int(0)
	if p == PSS {
		pss = 1
	}
	// digest and sig are Go memory without Go pointers inside: cgo lets C
	// read and write them for the duration of the call.
	var msg errBuf
	ok := C.ps_sign(k.pkey, pss, (*C.uchar)(unsafe.Pointer(&digest[0])), (*C.uchar)(unsafe.Pointer(&sig[0])), &n,
		&msg[0], C.size_t(len(msg)))
	runtime.KeepAlive(k)
	if ok != 1 {
		return nil, errors.New("libcrypto: " + msg.String())
	}
	return sig[:n], nil
}

// errBuf receives OpenSSL's reason for a failure (library, function and
// reason names: never key material).
type errBuf [256]C.char

func (b *errBuf) String() string {
	if s := C.GoString(&b[0]); s != "" {
		return s
	}
	return "unknown error"
}
