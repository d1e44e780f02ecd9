package leakscan

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Kind is what a Finding found.
type Kind string

// Kinds of findings.
const (
	KindCardNumber   Kind = "card_number"
	KindSecurityCode Kind = "security_code"
)

// Finding is one piece of card data found in scanned bytes. Its printing
// forms never show the data itself: a card number appears as bin+****+last4
// and a security code not at all.
type Finding struct {
	Kind   Kind
	Offset int    // byte offset of the first digit (or of its escape) in the scanned input
	Masked string // bin+****+last4 for card numbers, "[security code]" otherwise
	digits string
}

// String names the finding without revealing it.
func (f Finding) String() string {
	return fmt.Sprintf("%s %s at byte %d", f.Kind, f.Masked, f.Offset)
}

// Is reports whether the finding is the given card number or security code
// (tests compare against the values they sent without printing them).
func (f Finding) Is(value string) bool { return f.digits == value }

// Scanner finds card numbers and security codes.
type Scanner struct {
	// SecurityCodes are the codes to look for anywhere. A code is found where
	// it stands alone as a token: not part of a longer run of letters,
	// digits, '.', ':', '-', '_' or 'µ', so "737" is found in `"737"`,
	// `cvv=737` and in an Avro string (length byte + "737"), but not in a
	// timestamp "10:40:37.737Z" or a duration "1.737ms". Any 3 or 4 digits
	// after the name of a security code ("cvv 737", `"Security_Code":"737"`)
	// are found without being listed.
	SecurityCodes []string
}

// Scan reports every card number and security code in b, in order of
// offset. Overlapping card numbers are all reported: in "18 4111 1111 1111
// 1111" both the 18-digit and the 16-digit span are found when both pass the
// Luhn check, so a test that looks for the card it sent finds it.
func (s Scanner) Scan(b []byte) []Finding {
	t := decode(b)
	out := t.cards()
	out = append(out, t.listedCodes(s.SecurityCodes)...)
	out = append(out, t.namedCodes()...)
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Offset - b.Offset })
	return slices.CompactFunc(out, func(a, b Finding) bool {
		return a.Kind == b.Kind && a.Offset == b.Offset && a.digits == b.digits
	})
}

// ScanReader reads r to its end and scans it.
func (s Scanner) ScanReader(r io.Reader) ([]Finding, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return s.Scan(b), nil
}

// Scan reports the card numbers in b and the security codes written after
// their name.
func Scan(b []byte) []Finding { return Scanner{}.Scan(b) }

// cards finds every span of whole digit groups, with one separator byte
// between groups (any separator, any group size, mixed separators: wider on
// purpose than what the connector masks), that holds 12 to 19 digits passing
// the Luhn check.
func (t text) cards() []Finding {
	var out []Finding
	for i := 0; i < len(t.b); i++ {
		if !isDigit(t.b[i]) || (i > 0 && isDigit(t.b[i-1])) {
			continue // not the start of a group
		}
		var digits []byte
		for j := i; ; {
			k := j
			for k < len(t.b) && isDigit(t.b[k]) {
				k++
			}
			digits = append(digits, t.b[j:k]...)
			if len(digits) > 19 {
				break
			}
			if pan := panOf(string(digits)); pan != "" {
				out = append(out, Finding{Kind: KindCardNumber, Offset: t.at[i], Masked: mask(pan), digits: pan})
			}
			if k+1 >= len(t.b) || !isSeparator(t.b[k]) || !isDigit(t.b[k+1]) {
				break
			}
			j = k + 1
		}
	}
	return out
}

// listedCodes finds the given codes where they stand alone as a token.
func (t text) listedCodes(codes []string) []Finding {
	var out []Finding
	for i := 0; i < len(t.b); {
		if !isWord(t.b, i) {
			i++
			continue
		}
		end := tokenEnd(t.b, i)
		tok := string(t.b[i:end])
		for _, code := range codes {
			if code != "" && tok == code {
				out = append(out, Finding{Kind: KindSecurityCode, Offset: t.at[i], Masked: "[security code]", digits: code})
			}
		}
		i = end
	}
	return out
}

// codeName matches the name of a security code in any case and spelling
// (cvv, CVC2, cvn, csc, cvd, security code, Security_Code, securityCode),
// up to three short words after it, and the 3 or 4 digits that follow. It
// is wider than the connector's masking on purpose: any letters may precede
// the name.
var codeName = regexp.MustCompile(`(?i:cvv|cvc|cvn|cav|csc|cvd)2?|(?i:security)[^A-Za-z0-9]?(?i:code)`)

var codeAfterName = regexp.MustCompile(`^(?:[^A-Za-z0-9]{0,12}[A-Za-z]{1,8}){0,3}?[^A-Za-z0-9]{0,12}([0-9]{3,4})(?:[^0-9]|$)`)

// namedCodes finds 3 or 4 digits that follow the name of a security code.
func (t text) namedCodes() []Finding {
	var out []Finding
	for _, loc := range codeName.FindAllIndex(t.b, -1) {
		m := codeAfterName.FindSubmatchIndex(t.b[loc[1]:])
		if m == nil {
			continue
		}
		start, end := loc[1]+m[2], loc[1]+m[3]
		out = append(out, Finding{Kind: KindSecurityCode, Offset: t.at[start], Masked: "[security code]", digits: string(t.b[start:end])})
	}
	return out
}

// text is scanned bytes with JSON escapes decoded: b[i] stands for the
// input at offset at[i]. An escape of an ASCII character (`\u0034`, `\/`,
// also escaped again: `\\u0034`) becomes that character; any other
// non-ASCII character or byte becomes one separator byte (0x80), so that a
// no-break space or an escaped one separates digit groups like a space.
type text struct {
	b  []byte
	at []int
}

// decode builds the text of b.
func decode(b []byte) text {
	t := text{b: make([]byte, 0, len(b)), at: make([]int, 0, len(b))}
	for i := 0; i < len(b); {
		c, n := unit(b, i)
		t.b = append(t.b, c)
		t.at = append(t.at, i)
		i += n
	}
	return t
}

// unit decodes the character at b[i]: its ASCII byte (0x80 for anything
// else) and its length in the input.
func unit(b []byte, i int) (byte, int) {
	c := b[i]
	if c == '\\' {
		j := i
		for j < len(b) && b[j] == '\\' {
			j++ // any level of escaping
		}
		switch {
		case j+5 <= len(b) && b[j] == 'u':
			var r int
			for _, h := range b[j+1 : j+5] {
				v := hexDigit(h)
				if v < 0 {
					return '\\', 1
				}
				r = r<<4 | v
			}
			if r < 0x80 {
				return byte(r), j + 5 - i
			}
			return 0x80, j + 5 - i
		case j < len(b) && (b[j] == '/' || b[j] == '"'):
			return b[j], j + 1 - i
		}
		return '\\', 1
	}
	if c < 0x80 {
		return c, 1
	}
	n := 1
	for n < 4 && i+n < len(b) && b[i+n]&0xC0 == 0x80 {
		n++ // a UTF-8 sequence (or stray continuation bytes) is one unit
	}
	if c == 0xC2 && n == 2 && b[i+1] == 0xB5 {
		return 'u', 2 // 'µ' of "µs" continues a token
	}
	return 0x80, n
}

// hexDigit returns the value of a hexadecimal digit, or -1.
func hexDigit(h byte) int {
	switch {
	case isDigit(h):
		return int(h - '0')
	case h >= 'a' && h <= 'f':
		return int(h-'a') + 10
	case h >= 'A' && h <= 'F':
		return int(h-'A') + 10
	}
	return -1
}

// panOf returns digits when they look like a full card number.
func panOf(digits string) string {
	if len(digits) < 12 || len(digits) > 19 || !Luhn(digits) {
		return ""
	}
	return digits
}

// Luhn reports whether digits (ASCII 0-9 only) pass the Luhn check.
// It repeats internal/sensitive's check on purpose: the scanner is an
// independent oracle over the product's output, so a bug there cannot hide itself.
func Luhn(digits string) bool {
	sum := 0
	for i := 0; i < len(digits); i++ {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return len(digits) > 0 && sum%10 == 0
}

func mask(pan string) string {
	return pan[:6] + strings.Repeat("*", len(pan)-10) + pan[len(pan)-4:]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isSeparator reports whether c may stand between two digit groups of a
// card number: anything but a letter or digit.
func isSeparator(c byte) bool { return !isDigit(c) && !isLetter(c) }

// isWord reports whether b[i] continues a token: ASCII letters, digits and
// ".:-_" ('µ' is decoded as a letter). Other bytes, binary ones included,
// separate tokens.
func isWord(b []byte, i int) bool {
	c := b[i]
	return isDigit(c) || isLetter(c) || c == '.' || c == ':' || c == '-' || c == '_'
}

func tokenEnd(b []byte, i int) int {
	for i < len(b) && isWord(b, i) {
		i++
	}
	return i
}
