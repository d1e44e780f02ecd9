package sensitive

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names matches field, member, header and attribute names against a list of
// sensitive names by words, in any case and spelling: a name is split into
// words at every character that is neither a letter nor a digit and at
// camelCase boundaries, and it matches a listed name when its words contain
// the listed words in a row, or one of its words is the listed words run
// together. So "security_code" matches "Security_Code", "SECURITY-CODE",
// "securityCode", "SECURITYCODE" and "card_security_code"; "token" matches
// "recurring_token" but not "tokenized".
type Names struct {
	lists  [][]string // each listed name as lower-case words
	joined []string   // each listed name's words run together
}

// NewNames returns a matcher of the given names.
func NewNames(names ...string) Names {
	var n Names
	for _, name := range names {
		var ws []string
		for _, w := range splitWords(name, nil) {
			ws = append(ws, strings.ToLower(name[w.start:w.end]))
		}
		if len(ws) > 0 {
			n.lists = append(n.lists, ws)
			n.joined = append(n.joined, strings.Join(ws, ""))
		}
	}
	return n
}

// securityCodeNames are the names a security code goes by.
var securityCodeNames = []string{"security_code", "cvv", "cvv2", "cvc", "cvc2", "cvn", "cvn2", "cav2", "cvd", "csc", "card_verification_value", "card_verification_code"}

var securityCodes = NewNames(securityCodeNames...)

// SecurityCodeNames returns the names a card security code goes by
// (security_code, cvv, cvc2, ...), for lists of sensitive names.
func SecurityCodeNames() []string { return append([]string(nil), securityCodeNames...) }

// IsSecurityCodeName reports whether a field or member name names a card
// security code, in any case and spelling ("Security_Code", "cvv2", "CVC").
func IsSecurityCodeName(name string) bool { return securityCodes.Match(name) }

// Match reports whether name matches one of the listed names.
func (n Names) Match(name string) bool {
	var buf [16]span
	words := splitWords(name, buf[:0])
	for _, w := range words {
		for _, j := range n.joined {
			if strings.EqualFold(name[w.start:w.end], j) {
				return true
			}
		}
	}
	for _, list := range n.lists {
		for i := 0; i+len(list) <= len(words); i++ {
			if wordsEqual(name, words[i:i+len(list)], list) {
				return true
			}
		}
	}
	return false
}

func wordsEqual(name string, words []span, list []string) bool {
	for k, w := range words {
		if !strings.EqualFold(name[w.start:w.end], list[k]) {
			return false
		}
	}
	return true
}

// span is one word of a name: name[start:end].
type span struct{ start, end int }

// splitWords appends the words of name to dst: runs of letters and digits,
// split where a lower-case letter or digit is followed by an upper-case one
// ("securityCode") and before the last upper-case letter of a run followed
// by a lower-case one ("APIKey" is API, Key).
func splitWords(name string, dst []span) []span {
	start := -1
	var prev rune
	for i, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				dst = append(dst, span{start, i})
				start = -1
			}
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			_, size := utf8.DecodeRuneInString(name[i:])
			next, _ := utf8.DecodeRuneInString(name[i+size:])
			if !unicode.IsUpper(prev) || unicode.IsLower(next) {
				dst = append(dst, span{start, i})
				start = i
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	if start >= 0 {
		dst = append(dst, span{start, len(name)})
	}
	return dst
}
