package sensitive

import (
	"strings"
)

// Kind is the kind of card data a Match found.
type Kind uint8

// Kinds of card data in text.
const (
	// KindCard is a card number: 12 to 19 digits that pass the Luhn check,
	// possibly grouped by single separators or JSON-escaped.
	KindCard Kind = iota + 1
	// KindDigits is a group of digits that may hold a card number but
	// cannot be split into one: more than 19 digits holding a Luhn-valid
	// window, or (with Finder.LongDigits) any 12 or more digits.
	KindDigits
	// KindSecurityCode is 3 or 4 digits that follow the name of a security
	// code in free text ("cvv 737").
	KindSecurityCode
)

// Match is one piece of card data in a text.
type Match struct {
	Kind       Kind
	Start, End int    // byte offsets of the piece, separators and escapes included
	Digits     string // the card number's digits (KindCard only)
	n          int    // digit count
}

// Mask returns what may stand in the text instead of the match: bin,
// asterisks and last4 for a card number, one asterisk per digit for a long
// group, "***" for a security code.
func (m Match) Mask() string {
	switch m.Kind {
	case KindCard:
		return PAN(m.Digits).Masked()
	case KindDigits:
		return strings.Repeat("*", m.n)
	}
	return "***"
}

// Finder finds card data in free text: log messages and attributes, error
// strings, strings of a dead-lettered command. The zero value finds card
// numbers and security codes.
type Finder struct {
	// LongDigits also reports every group of 12 or more digits that holds
	// no card number (KindDigits): for text that may quote part of a card
	// number, such as error strings.
	LongDigits bool
}

// Next returns the first match that starts at or after from, which must
// not be inside a digit group. A card number wins over a security code
// starting at the same place.
func (f Finder) Next(s string, from int) (Match, bool) {
	card, okCard := newCardText(s).next(from, f.LongDigits)
	code, okCode := newCodeText(s).next(from)
	if okCode && (!okCard || code.Start < card.Start) {
		return code, true
	}
	return card, okCard
}

// Replace returns s with every match replaced by mask(match). Text that
// holds no card data comes back as is, without allocating.
func (f Finder) Replace(s string, mask func(Match) string) string {
	scanCards, scanCodes := worthScanning(s)
	if !scanCards && !scanCodes {
		return s
	}
	text, codes := newCardText(s), newCodeText(s)
	var b strings.Builder
	var card, code Match
	okCard, okCode := scanCards, scanCodes
	cardFrom, codeFrom := -1, -1 // where card and code were last looked up
	pos := 0
	for {
		// Look up again only what an earlier replacement overlapped.
		if okCard && (cardFrom < 0 || card.Start < pos) {
			card, okCard = text.next(pos, f.LongDigits)
			cardFrom = pos
		}
		if okCode && (codeFrom < 0 || code.Start < pos) {
			code, okCode = codes.next(pos)
			codeFrom = pos
		}
		var m Match
		switch {
		case okCard && (!okCode || card.Start <= code.Start):
			m = card
		case okCode:
			m = code
		default:
			if b.Len() == 0 && pos == 0 {
				return s
			}
			b.WriteString(s[pos:])
			return b.String()
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[pos:m.Start])
		b.WriteString(mask(m))
		pos = m.End
	}
}

// worthScanning is the fast path: card numbers need 12 digits and security
// codes 3 (or an escape, which may stand for a digit).
func worthScanning(s string) (cards, codes bool) {
	digits := 0
	for i := 0; i < len(s); i++ {
		if s[i]-'0' <= 9 {
			digits++
		}
	}
	escaped := strings.IndexByte(s, '\\') >= 0
	return digits >= minCardDigits || escaped, digits >= 3 || escaped
}

// MaskText returns s with card numbers, long digit groups holding one and
// security codes in free text replaced by their masks (Match.Mask), until
// no card number is left. Text without card data comes back as is, without
// allocating.
//
// One pass is not always enough: a mask keeps a card's first six and last
// four digits, and kept digits beside other digit groups can read as
// another card number ("000/0001/0010/011/1110/1111/1111" became
// "000/0001/0010/011111*****1111", which holds one; found by fuzzing). So
// the text is masked again while it holds a card number; every pass that
// finds one turns digits into '*', so this ends.
func MaskText(s string) string {
	prev, out := s, Finder{}.Replace(s, Match.Mask)
	for out != prev && ContainsCard(out) {
		prev, out = out, Finder{}.Replace(out, Match.Mask)
	}
	return out
}

// ContainsCard reports whether s holds a card number: 12 to 19 Luhn-valid
// digits, possibly grouped by single separators or JSON-escaped, or a longer
// digit group holding one; a backslash counts both as the start of an escape
// and as itself (cardText).
func ContainsCard(s string) bool {
	if cards, _ := worthScanning(s); !cards {
		return false
	}
	_, ok := newCardText(s).next(0, false)
	return ok
}

// ContainsCardData reports whether s holds card data as MaskText finds it: a
// card number (ContainsCard) or a security code written after its name
// ("cvv 321", `"Security_Code":"999"`, "cvc=123", in any case, its digits
// possibly JSON-escaped). It is the test of free text that must hold none,
// such as a command's customer reference or metadata.
func ContainsCardData(s string) bool {
	if cards, codes := worthScanning(s); !cards && !codes {
		return false
	}
	_, ok := Finder{}.Next(s, 0)
	return ok
}

// Scrub returns error text fit to publish or log: every card number, every
// security code after its name and every group of 12 or more digits (which
// may be part of a card number the text quotes) is replaced by
// "[redacted]". It is for text whose content is not ours — an API's error
// description, a decoder's error quoting a value — where keeping a card's
// bin and last4 (MaskText) would tell more than an error needs. Text
// without card data comes back as is, without allocating.
func Scrub(s string) string {
	return scrubFinder.Replace(s, func(Match) string { return redacted })
}

// scrubFinder also reports long digit groups that hold no card number.
var scrubFinder = Finder{LongDigits: true}
