package signing

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// FuzzVerify feeds Verify arbitrary X-PARTNER-SIGN values and bodies with
// the rotation pair a, b configured; pick chooses the padding, the genuine
// signer, where the header is spliced and (bit 3 set) skips the genuine
// checks, which sign once per input and cost milliseconds. Properties:
//   - no panic, and every rejection is ErrBadSignature;
//   - an accepted header decodes to a true signature of exactly that body
//     under a configured key, and flipping one body byte makes it rejected;
//   - a genuine signature of the body by a or b always verifies, one by the
//     forger's key never does;
//   - the header spliced into a genuine signature is accepted only when the
//     result decodes to the same signature bytes (Base64 decoding skips CR
//     and LF and ignores the unused bits of the last quantum, so a few
//     spellings of one signature verify; none of another signature does).
//
// Keys are generated once per process, so the committed seed corpus
// (testdata/fuzz/FuzzVerify/) holds only signatures nobody can verify;
// genuine ones are added below at run time.
func FuzzVerify(f *testing.F) {
	k := keys(f)
	body := []byte(`{"type":"payment_finished","session":{"id":"ps_1","status":"accepted"}}`)
	other := []byte(`{"type":"payment_finished","session":{"id":"ps_2","status":"accepted"}}`)
	sigA := mustSign(f, k.a, PKCS1v15, body)
	sigB := mustSign(f, k.b, PSS, body)
	for _, s := range []struct {
		header string
		body   []byte
		pick   uint8
	}{
		{sigA, body, 0}, // genuine, key a
		{sigB, body, 3}, // genuine PSS, key b
		{mustSign(f, k.a, PKCS1v15, other), body, 0}, // genuine for another body
		{mustSign(f, k.forger, PKCS1v15, body), body, 4},
		{sigA[:76] + "\r\n" + sigA[76:], body, 0}, // MIME line break
		{strings.TrimRight(sigA, "="), body, 0},   // padding dropped
		{" " + sigA + " ", body, 0},
		{base64.URLEncoding.EncodeToString(mustDecode(f, sigA)), body, 0},
		{sigA + sigA, body, 0},
		{strings.Repeat("QUFB", 1<<11), body, 8}, // 8 KiB of valid Base64
		{"", nil, 0},
		{"", body, 1},
	} {
		f.Add(s.header, s.body, s.pick)
	}
	f.Fuzz(func(t *testing.T, header string, body []byte, pick uint8) {
		pad := Padding(pick & 1)
		v := NewRSAVerifier(pad, k.a.Public(), k.b.Public())
		checkVerdict(t, k, v, pad, header, body, pick)
		if pick&8 != 0 {
			return
		}

		signer := k.a
		if pick&2 != 0 {
			signer = k.b
		}
		genuine := mustSign(t, signer, pad, body)
		if err := v.Verify(body, genuine); err != nil {
			t.Fatalf("genuine %s signature rejected: %v", pad, err)
		}
		at := int(pick) * (len(genuine) + 1) / 256
		spliced := genuine[:at] + header + genuine[at:]
		if v.Verify(body, spliced) == nil {
			got, err := base64.StdEncoding.DecodeString(spliced)
			if err != nil || !bytes.Equal(got, mustDecode(t, genuine)) {
				t.Fatalf("accepted %q: not the genuine signature's bytes", spliced)
			}
		}
		if pick&4 != 0 {
			if err := v.Verify(body, mustSign(t, k.forger, pad, body)); err == nil {
				t.Fatal("forger's signature accepted")
			}
		}
	})
}

// checkVerdict checks Verify's answer for one header and body.
func checkVerdict(t *testing.T, k *testKeys, v *RSAVerifier, pad Padding, header string, body []byte, pick uint8) {
	t.Helper()
	err := v.Verify(body, header)
	if err != nil {
		if !errors.Is(err, ErrBadSignature) {
			t.Fatalf("error %v is not ErrBadSignature", err)
		}
		return
	}
	sig, derr := base64.StdEncoding.DecodeString(header)
	if derr != nil {
		t.Fatalf("accepted a header that is not Base64: %v", derr)
	}
	if !trueSignature(k, pad, body, sig) {
		t.Fatalf("accepted %q: not a signature of the body by a configured key", header)
	}
	mutated := bytes.Clone(body)
	if len(mutated) == 0 {
		mutated = []byte{0}
	} else {
		mutated[int(pick)%len(mutated)] ^= 1 << (pick % 8)
	}
	if v.Verify(mutated, header) == nil {
		t.Fatal("signature still accepted after one body byte changed")
	}
}

// trueSignature checks sig against body with the rsa package directly:
// PKCS#1 v1.5 signatures are deterministic, so sig must equal a configured
// key's own signature; PSS ones must verify under a configured key.
func trueSignature(k *testKeys, pad Padding, body, sig []byte) bool {
	digest := sha256.Sum256(body)
	for _, s := range []*RSASigner{k.a, k.b} {
		if pad == PSS {
			if rsa.VerifyPSS(s.Public(), crypto.SHA256, digest[:], sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthAuto}) == nil {
				return true
			}
			continue
		}
		want, err := rsa.SignPKCS1v15(nil, s.key, crypto.SHA256, digest[:])
		if err == nil && bytes.Equal(want, sig) {
			return true
		}
	}
	return false
}

func mustSign(t testing.TB, s *RSASigner, pad Padding, body []byte) string {
	t.Helper()
	sig, err := NewRSASigner(s.key, pad).Sign(body)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func mustDecode(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
