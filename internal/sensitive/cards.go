package sensitive

import (
	"unicode"
	"unicode/utf8"
)

// Card numbers in free text. Text is read as a sequence of units: a rune,
// or a JSON escape (`\u0034`, `\/`, `\n`, ...) standing for one, so a body
// quoted inside a log line or an error is read like the body itself. A
// digit unit is an ASCII digit or its escape; a separator is any single
// unit that is neither a letter nor a digit (space, '-', '.', '/', '_', ':',
// a no-break space, an escaped slash, ...). A run is a sequence of digit
// groups with exactly one separator between neighbours.
//
// A card number is a span of whole groups of a run holding 12 to 19 digits
// that pass the Luhn check, where a span of several groups has one and the
// same separator throughout and at least three digits in every group, as
// every card grouping has (4-4-4-4, 4-6-5, 4-6-4, 4-4-4-4-3). These two
// conditions keep dates, times and addresses ("2026-11-24 04:50:43.123",
// "10.0.0.12:9092", a key "2026-11-24-000123") from reading as card numbers
// one time in ten. From each group the longest span is taken (so
// "2 4111 1111 1111 1111" yields the card, not the 2). A single group of
// more than 19 digits cannot be split into groups: it is reported whole
// (KindDigits) when any 12–19 digit window of it passes the check — a false
// positive costs a number, a false negative a card.

// minCardDigits and maxCardDigits bound the length of a card number;
// minGroupDigits is the shortest group of a card number written in groups.
const (
	minCardDigits  = 12
	maxCardDigits  = 19
	minGroupDigits = 3
)

// unitKind classifies one unit of text.
type unitKind uint8

const (
	unitOther unitKind = iota // a letter or digit other than ASCII 0-9
	unitDigit
	unitSeparator
)

// unitAt reads the unit at s[i]: its kind, its length in bytes and, for a
// digit, the ASCII digit it stands for.
func unitAt(s string, i int) (unitKind, int, byte) {
	c := s[i]
	switch {
	case c >= '0' && c <= '9':
		return unitDigit, 1, c
	case c == '\\':
		return escapeAt(s, i)
	case c < utf8.RuneSelf:
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return unitOther, 1, 0
		}
		return unitSeparator, 1, 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return unitOther, n, 0
	}
	return unitSeparator, n, 0
}

// escapeAt reads a JSON escape at s[i] (a backslash). A backslash that starts
// no escape is a separator of its own.
func escapeAt(s string, i int) (unitKind, int, byte) {
	if i+1 >= len(s) {
		return unitSeparator, 1, 0
	}
	switch s[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return unitSeparator, 2, 0
	case 'u':
		if i+6 > len(s) {
			return unitSeparator, 1, 0
		}
		var r rune
		for _, h := range []byte(s[i+2 : i+6]) {
			v, ok := hexValue(h)
			if !ok {
				return unitSeparator, 1, 0
			}
			r = r<<4 | rune(v)
		}
		switch {
		case r >= '0' && r <= '9':
			return unitDigit, 6, byte(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return unitOther, 6, 0
		}
		return unitSeparator, 6, 0
	}
	return unitSeparator, 1, 0
}

func hexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// group is one group of digits of a run: s[start:end] holds n digits.
type group struct{ start, end, n int }

// groupAt reads the digit group starting at s[i] (a digit unit), appending
// its ASCII digits to digits.
func groupAt(s string, i int, digits []byte) (group, []byte) {
	g := group{start: i}
	for i < len(s) {
		k, n, d := unitAt(s, i)
		if k != unitDigit {
			break
		}
		digits = append(digits, d)
		g.n++
		i += n
	}
	g.end = i
	return g, digits
}

// nextGroup returns the start of the group that continues the run after a
// group ending at end: one separator, then a digit. ok is false at the end
// of the run.
func nextGroup(s string, end int) (int, bool) {
	if end >= len(s) {
		return 0, false
	}
	k, n, _ := unitAt(s, end)
	if k != unitSeparator || end+n >= len(s) {
		return 0, false
	}
	if k, _, _ := unitAt(s, end+n); k != unitDigit {
		return 0, false
	}
	return end + n, true
}

// nextDigit returns the first digit unit at or after from that starts a
// group: not preceded by a digit unit of the same group.
func nextDigit(s string, from int) (int, bool) {
	for i := from; i < len(s); {
		c := s[i]
		if c != '\\' && (c < '0' || c > '9') {
			i++
			continue
		}
		k, n, _ := unitAt(s, i)
		if k == unitDigit {
			return i, true
		}
		i += n
	}
	return 0, false
}

// nextCard returns the first card number (KindCard), or long digit group
// (KindDigits), that starts at or after from. from must not be inside a
// digit group. With allLong, every group of 12 or more digits that holds no
// card is reported as KindDigits as well.
func nextCard(s string, from int, allLong bool) (Match, bool) {
	var buf [64]byte
	for {
		start, ok := nextDigit(s, from)
		if !ok {
			return Match{}, false
		}
		if m, ok := cardFrom(s, start, allLong, buf[:0]); ok {
			return m, true
		}
		// No card starts with this group: go on after it.
		_, end := skipGroup(s, start)
		from = end
	}
}

// skipGroup returns the digit count and end of the group starting at i.
func skipGroup(s string, i int) (int, int) {
	n := 0
	for i < len(s) {
		k, l, _ := unitAt(s, i)
		if k != unitDigit {
			break
		}
		n++
		i += l
	}
	return n, i
}

// cardFrom looks for a card number whose first group starts at start.
func cardFrom(s string, start int, allLong bool, digits []byte) (Match, bool) {
	g, digits := groupAt(s, start, digits)
	if g.n > maxCardDigits {
		if allLong || hasCardWindow(digits) {
			return Match{Kind: KindDigits, Start: g.start, End: g.end, n: g.n}, true
		}
		return Match{}, false
	}
	best := Match{}
	sep := ""
	for cur := g; ; {
		if len(digits) >= minCardDigits && luhn(digits) {
			best = Match{Kind: KindCard, Start: start, End: cur.end, Digits: string(digits), n: len(digits)}
		}
		next, ok := nextGroup(s, cur.end)
		if !ok || g.n < minGroupDigits {
			break
		}
		if sep == "" {
			sep = s[cur.end:next]
		}
		n, _ := skipGroup(s, next)
		if s[cur.end:next] != sep || n < minGroupDigits || len(digits)+n > maxCardDigits {
			break
		}
		cur, digits = groupAt(s, next, digits)
	}
	if best.Kind != 0 {
		return best, true
	}
	if allLong && g.n >= minCardDigits {
		return Match{Kind: KindDigits, Start: g.start, End: g.end, n: g.n}, true
	}
	return Match{}, false
}

// hasCardWindow reports whether some 12–19 digit window of digits passes
// the Luhn check.
func hasCardWindow(digits []byte) bool {
	for w := minCardDigits; w <= maxCardDigits; w++ {
		for k := 0; k+w <= len(digits); k++ {
			if luhn(digits[k : k+w]) {
				return true
			}
		}
	}
	return false
}

// luhn reports whether the ASCII digits pass the Luhn check.
func luhn(digits []byte) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}
