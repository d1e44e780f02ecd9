package leakscan

import (
	"fmt"
	"io"
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
	Offset int    // byte offset of the first digit in the scanned input
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

// Scanner finds card numbers and the configured security codes.
type Scanner struct {
	// SecurityCodes are the codes to look for. A code is found where it
	// stands alone as a token: not part of a longer run of letters, digits,
	// '.', ':', '-', '_' or 'µ', so "737" is found in `"737"`, `cvv=737` and
	// in an Avro string (length byte + "737"), but not in a timestamp
	// "10:40:37.737Z" or a duration "1.737ms".
	SecurityCodes []string
}

// Scan reports every card number and security code in b, in order.
func (s Scanner) Scan(b []byte) []Finding {
	var out []Finding
	for i := 0; i < len(b); {
		if !isWord(b, i) {
			i++
			continue
		}
		end := tokenEnd(b, i)
		found, next := s.scanToken(b, i, end)
		out = append(out, found...)
		i = max(end, next)
	}
	return out
}

// ScanReader reads r to its end and scans it.
func (s Scanner) ScanReader(r io.Reader) ([]Finding, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return s.Scan(b), nil
}

// Scan reports the card numbers in b (no security codes).
func Scan(b []byte) []Finding { return Scanner{}.Scan(b) }

// scanToken looks at one token b[start:end]: the whole token against the
// security codes, and its digit runs (single ' ' or '-' between groups of
// four allowed: "4111 1111 1111 1111") against the card number rules.
func (s Scanner) scanToken(b []byte, start, end int) ([]Finding, int) {
	var out []Finding
	consumed := end
	tok := string(b[start:end])
	for _, code := range s.SecurityCodes {
		if code != "" && tok == code {
			out = append(out, Finding{Kind: KindSecurityCode, Offset: start, Masked: "[security code]", digits: code})
		}
	}
	for i := start; i < end; {
		if !isDigit(b[i]) {
			i++
			continue
		}
		digits, next := digitRun(b, i, len(b))
		if pan := panOf(digits); pan != "" {
			out = append(out, Finding{Kind: KindCardNumber, Offset: i, Masked: mask(pan), digits: pan})
		}
		i, consumed = next, max(consumed, next)
	}
	return out, consumed
}

// digitRun returns the digits starting at i and where they end. Groups of
// exactly four digits may be followed by one space or dash and more digits.
func digitRun(b []byte, i, limit int) (string, int) {
	var sb strings.Builder
	for {
		j := i
		for j < limit && isDigit(b[j]) {
			j++
		}
		sb.Write(b[i:j])
		if j-i == 4 && j+1 < limit && (b[j] == ' ' || b[j] == '-') && isDigit(b[j+1]) {
			i = j + 1
			continue
		}
		return sb.String(), j
	}
}

// panOf returns digits when they look like a full card number.
func panOf(digits string) string {
	if len(digits) < 12 || len(digits) > 19 || !Luhn(digits) {
		return ""
	}
	return digits
}

// Luhn reports whether digits (ASCII 0-9 only) pass the Luhn check.
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

// isWord reports whether b[i] continues a token: ASCII letters, digits,
// ".:-_" and the two bytes of a UTF-8 'µ' (of "µs"). Other bytes, binary
// ones included, separate tokens.
func isWord(b []byte, i int) bool {
	c := b[i]
	switch {
	case isDigit(c), c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	case c == '.', c == ':', c == '-', c == '_':
		return true
	case c == 0xC2:
		return i+1 < len(b) && b[i+1] == 0xB5
	case c == 0xB5:
		return i > 0 && b[i-1] == 0xC2
	}
	return false
}

func tokenEnd(b []byte, i int) int {
	for i < len(b) && isWord(b, i) {
		i++
	}
	return i
}
