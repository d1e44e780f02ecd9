package sensitive

import "strings"

// Error fields, rules and codes from outside — the API's "<field
// path>.<rule>" error descriptions and codes, member names a decoder quotes
// — are published as they are only when they have the shape of one; they
// are parsed, never scrubbed like free text. An API (or a proxy in front of
// it) that echoes the request in its error can put anything there, and a
// field path that carries "4111.1111.1111" in three of its segments holds
// most of a card number without any of them looking like one.

// Unparseable stands in for an error field, rule or code from outside that
// does not have the shape of one.
const Unparseable = "unparseable"

// Bounds of a field path and of a token: their length, and how many digits
// they may hold in all (array indices, "address_line2"), far fewer than the
// 12 of the shortest card number.
const (
	maxFieldPath   = 128
	maxFieldDigits = 6
	maxIndexDigits = 4
	maxToken       = 64
	maxTokenDigits = 4
)

// FieldPath returns s when it reads as a field path, else Unparseable; ""
// stays "". A field path is at most 128 bytes of segments joined by '.',
// each a name — an ASCII letter or '_' followed by letters, digits, '_' or
// '-' ("amount_details", "X-PARTNER-SIGN") — or "*" (a name not shown), or
// an array index of up to 4 digits, a name or "*" possibly followed by
// indices in brackets ("emails[1]"); it holds at most 6 digits in all and no
// card data (ContainsCardData: "cvv737" is a security code).
func FieldPath(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > maxFieldPath || countDigits(s) > maxFieldDigits || ContainsCardData(s) {
		return Unparseable
	}
	for seg := range strings.SplitSeq(s, ".") {
		if !fieldSegment(seg) {
			return Unparseable
		}
	}
	return s
}

// fieldSegment reports whether seg is one segment of a field path.
func fieldSegment(seg string) bool {
	if indexDigits(seg) {
		return true
	}
	name, indices, _ := strings.Cut(seg, "[")
	if name != "*" && !isName(name) {
		return false
	}
	if indices == "" {
		return !strings.HasSuffix(seg, "[")
	}
	for _, ix := range strings.Split(indices, "[") {
		d, ok := strings.CutSuffix(ix, "]")
		if !ok || !indexDigits(d) {
			return false
		}
	}
	return true
}

// Token returns s when it reads as a short identifier — an error rule
// ("blank", "non_unique") or code ("invalid_request") — else Unparseable;
// "" stays "". A token is an ASCII letter followed by at most 63 letters,
// digits, '_' or '-', holding at most 4 digits and no card data.
func Token(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > maxToken || !isName(s) || !isLetter(s[0]) || countDigits(s) > maxTokenDigits || ContainsCardData(s) {
		return Unparseable
	}
	return s
}

// isName reports whether s is an ASCII letter or '_' followed by letters,
// digits, '_' or '-'.
func isName(s string) bool {
	if s == "" || !isLetter(s[0]) && s[0] != '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return isUpper(c) || isLower(c) }

// indexDigits reports whether s is an array index: 1 to 4 digits.
func indexDigits(s string) bool { return len(s) <= maxIndexDigits && allDigits(s) }

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i]-'0' <= 9 {
			n++
		}
	}
	return n
}
