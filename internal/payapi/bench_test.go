package payapi

import (
	"testing"

	"github.com/paysession/paysession/internal/signing"
)

// BenchmarkSignAndSerialize measures the connector's per-request CPU floor:
// map a typical InitPayout to the v2 wire shape, serialize it once and sign
// those bytes with a 2048-bit RSA key.
func BenchmarkSignAndSerialize(b *testing.B) {
	b.Run("serialize-only", func(b *testing.B) {
		req := typicalPayout()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := encodeBody(wireInitPayout(2, req)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, p := range []signing.Padding{signing.PKCS1v15, signing.PSS} {
		b.Run(p.String(), func(b *testing.B) {
			signer := signing.NewRSASigner(key(b), p)
			req := typicalPayout()
			b.ReportAllocs()
			for b.Loop() {
				body, err := encodeBody(wireInitPayout(2, req))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := signer.Sign(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
