package sensitive

import (
	"strings"
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
// same separator throughout and three to six digits in every group, as
// every card grouping has (4-4-4-4, 4-6-5, 4-6-4, 4-4-4-4-3). These
// conditions keep dates, times, addresses and ids ("2026-11-24 04:50:43.123",
// "10.0.0.12:9092", keys "2026-11-24-000123" and "reb-69920512-000008")
// from reading as card numbers one time in ten. From each group the longest span is taken (so
// "2 4111 1111 1111 1111" yields the card, not the 2); spans that overlap
// are masked together, whole. A single group of
// more than 19 digits cannot be split into groups: it is reported whole
// (KindDigits) when any 12–19 digit window of it passes the check — a false
// positive costs a number, a false negative a card.

// minCardDigits and maxCardDigits bound the length of a card number;
// minGroupDigits and maxGroupDigits bound a group of a card number written
// in groups.
const (
	minCardDigits  = 12
	maxCardDigits  = 19
	minGroupDigits = 3
	maxGroupDigits = 6
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

// group is one group of digits of a run: s[start:end] holds n digits; sep
// is the separator before it ("" for the first).
type group struct {
	start, end, n int
	sep           string
}

// run reads the digit groups of a run lazily, from a group start on. It
// keeps the first groups in an array, so that reading a run allocates
// nothing.
type run struct {
	s     string
	first [24]group
	more  []group // groups after the first 24 (rare)
	count int
}

func newRun(s string, start int) run {
	r := run{s: s, count: 1}
	r.first[0] = group{start: start}
	r.first[0].n, r.first[0].end = skipGroup(s, start)
	return r
}

// at returns group k, which must have been read.
func (r *run) at(k int) *group {
	if k < len(r.first) {
		return &r.first[k]
	}
	return &r.more[k-len(r.first)]
}

// read makes sure group k has been read; it reports false when the run has
// fewer groups.
func (r *run) read(k int) bool {
	for r.count <= k {
		last := r.at(r.count - 1)
		next, ok := nextGroup(r.s, last.end)
		if !ok {
			return false
		}
		g := group{start: next, sep: r.s[last.end:next]}
		g.n, g.end = skipGroup(r.s, next)
		if r.count < len(r.first) {
			r.first[r.count] = g
		} else {
			r.more = append(r.more, g)
		}
		r.count++
	}
	return true
}

// longest returns the last group of the longest card number starting with
// group i: 12 to 19 Luhn-valid digits; when it spans several groups, each
// holds minGroupDigits to maxGroupDigits and they share one separator.
func (r *run) longest(i int) (int, bool) {
	best, ok := 0, false
	n := 0
	var digits [maxCardDigits]byte // the candidate's digits, separators and escapes skipped
	for j := i; r.read(j); j++ {
		g := r.at(j)
		if j > i && (!groupSized(g.n) || !groupSized(r.at(i).n) || g.sep != r.at(i+1).sep) {
			break
		}
		if n += g.n; n > maxCardDigits {
			break
		}
		if n >= minCardDigits && luhn(appendDigits(digits[:0], r.s, r.at(i).start, g.end)) {
			best, ok = j, true
		}
	}
	return best, ok
}

// groupSized reports whether a group of n digits can be one group of a card
// number written in groups.
func groupSized(n int) bool { return n >= minGroupDigits && n <= maxGroupDigits }

// skipGroup returns the digit count and end of the group starting at s[i].
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

// appendDigits appends the ASCII digits of s[start:end] to dst.
func appendDigits(dst []byte, s string, start, end int) []byte {
	for i := start; i < end; {
		k, l, d := unitAt(s, i)
		if k == unitDigit {
			dst = append(dst, d)
		}
		i += l
	}
	return dst
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

// nextDigit returns the first digit unit at or after from.
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

// cardText is a text read for card numbers in both ways a backslash can be
// meant: as the start of a JSON escape (a quoted body: "\u0034111..." holds
// 4111...) and as itself, a separator like any other (a decoded name quoted
// in an error: "\u4111111111111111" holds 4111111111111111 after the 'u',
// which the escaped reading takes as one letter and twelve digits; found by
// fuzzing). raw is s with every backslash read as a space, the same length,
// so that its offsets are s's; it is empty when s has no backslash.
type cardText struct {
	s, raw string
}

func newCardText(s string) cardText {
	t := cardText{s: s}
	if strings.IndexByte(s, '\\') >= 0 {
		t.raw = strings.ReplaceAll(s, `\`, " ")
	}
	return t
}

// next returns the first card data at or after from in either reading. When
// the two readings find different pieces that overlap, the region they
// cover is one KindDigits match: masking it whole hides both.
func (t cardText) next(from int, allLong bool) (Match, bool) {
	m, ok := nextCard(t.s, from, allLong)
	if t.raw == "" {
		return m, ok
	}
	r, okRaw := nextCard(t.raw, from, allLong)
	switch {
	case !okRaw:
		return m, ok
	case !ok:
		return r, true
	case r.Start == m.Start && r.End == m.End:
		return m, true
	}
	if r.Start < m.Start {
		m, r = r, m
	}
	if r.Start >= m.End {
		return m, true
	}
	whole := Match{Kind: KindDigits, Start: m.Start, End: max(m.End, r.End)}
	for i := whole.Start; i < whole.End; i++ {
		if t.s[i] >= '0' && t.s[i] <= '9' {
			whole.n++
		}
	}
	return whole, true
}

// nextCard returns the first card number (KindCard), or digits that hold
// one (KindDigits), starting at or after from, which must not be inside a
// digit group. With allLong, every group of 12 or more digits that holds no
// card is reported as KindDigits as well.
func nextCard(s string, from int, allLong bool) (Match, bool) {
	for {
		start, ok := nextDigit(s, from)
		if !ok {
			return Match{}, false
		}
		r := newRun(s, start)
		if m, ok := r.card(allLong); ok {
			return m, true
		}
		from = r.first[0].end // no card starts with this group: go on after it
	}
}

// card returns the card data that starts with the run's first group. When
// the longest card number from there overlaps another card number that
// starts in a later group of it ("2026 4111 1111 1111 1111" where
// "2026 4111 1111" passes the check too), the whole region they cover is
// reported as KindDigits: masking one of them as bin and last4 would show
// most digits of the other.
func (r *run) card(allLong bool) (Match, bool) {
	first := r.first[0]
	whole := Match{Kind: KindDigits, Start: first.start, End: first.end, n: first.n}
	if first.n > maxCardDigits {
		if allLong {
			return whole, true
		}
		var buf [64]byte
		return whole, hasCardWindow(appendDigits(buf[:0], r.s, first.start, first.end))
	}
	end, ok := r.longest(0)
	if !ok {
		return whole, allLong && first.n >= minCardDigits
	}
	single := true
	for k := 1; k <= end; k++ {
		if e, ok := r.longest(k); ok {
			single = false
			end = max(end, e)
		}
	}
	m := Match{Kind: KindDigits, Start: first.start, End: r.at(end).end}
	for k := 0; k <= end; k++ {
		m.n += r.at(k).n
	}
	if single {
		m.Kind = KindCard
		m.Digits = string(appendDigits(make([]byte, 0, m.n), r.s, m.Start, m.End))
	}
	return m, true
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
