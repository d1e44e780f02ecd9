package sensitive

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// referenceDraws is how many random references each class of
// TestCardLikeFalsePositiveRate draws.
const referenceDraws = 1_000_000

// referenceClass draws random references of one realistic shape.
type referenceClass struct {
	name     string
	alphabet string
	min, max int    // length, inclusive
	prefix   string // written before the random part
	pattern  string // instead of min and max: every 'x' is a random character
	// low and high bound the refused share the class must show: the
	// figures of schemas/README.md, kept honest.
	low, high float64
}

const (
	digitChars = "0123456789"
	alnumChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" + digitChars
	upperChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + digitChars
	hexChars   = "0123456789abcdef"
)

// TestCardLikeFalsePositiveRate measures how many random, card-free
// references a command's free-text field check (ContainsCardData, as
// codec's validation uses it) refuses as card data, with a fixed seed, and
// logs the rate per class (go test -run FalsePositive -v). What counts as
// card-like: 12 to 19 digits that pass the Luhn check, alone or grouped by
// one and the same single separator into groups of 3 to 6 digits (4-4-4-4,
// 4-6-5, ...), plain or JSON-escaped, or a group of more than 19 digits
// holding such a window; and 3 or 4 digits after the name of a security
// code. Letters never separate groups, so a reference mixing letters and
// digits is refused only where it holds 12 or more digits in a row.
func TestCardLikeFalsePositiveRate(t *testing.T) {
	if testing.Short() {
		t.Skip("draws millions of references")
	}
	classes := []referenceClass{
		{name: "alphanumeric [A-Za-z0-9], 8-32", alphabet: alnumChars, min: 8, max: 32, high: 0.0001},
		{name: "upper case and digits [A-Z0-9], 8-32", alphabet: upperChars, min: 8, max: 32, high: 0.001},
		{name: "hex, 32 (a UUID without dashes)", alphabet: hexChars, min: 32, max: 32, high: 0.02},
		{name: "UUID (8-4-4-4-12 hex)", alphabet: hexChars, pattern: "xxxxxxxx-xxxx-4xxx-xxxx-xxxxxxxxxxxx", high: 0.01},
		{name: "prefix and 6-11 digits (cust-000123)", alphabet: digitChars, min: 6, max: 11, prefix: "cust-", high: 0},
		{name: "digits only, 12-19", alphabet: digitChars, min: 12, max: 19, low: 0.09, high: 0.11},
		{name: "digits only, 20-24", alphabet: digitChars, min: 20, max: 24, low: 0.95, high: 1},
	}
	rng := rand.New(rand.NewPCG(37, 2026))
	var b strings.Builder
	for _, c := range classes {
		refused := 0
		for range referenceDraws {
			b.Reset()
			b.WriteString(c.prefix)
			if c.pattern != "" {
				for i := 0; i < len(c.pattern); i++ {
					if ch := c.pattern[i]; ch != 'x' {
						b.WriteByte(ch)
						continue
					}
					b.WriteByte(c.alphabet[rng.IntN(len(c.alphabet))])
				}
			}
			for range c.min + rng.IntN(c.max-c.min+1) {
				b.WriteByte(c.alphabet[rng.IntN(len(c.alphabet))])
			}
			if ContainsCardData(b.String()) {
				refused++
			}
		}
		rate := float64(refused) / referenceDraws
		t.Logf("%-42s refused %7d of %d (%.4f%%)", c.name, refused, referenceDraws, 100*rate)
		if rate < c.low || rate > c.high {
			t.Errorf("%s: refused rate %.6f outside [%g, %g]", c.name, rate, c.low, c.high)
		}
	}
}
