package sensitive

import (
	"sort"
	"strings"
)

// Security codes in free text: 3 or 4 digits that follow the name of a
// security code — "cvv 737", "CVC2=737", "cvc: 1234", "security code 737",
// `"Security_Code":"737"`, `\"cvv\":\"737\"`, "cardCvv=737", "cvv737".
// Between the name and the digits stand up to maxCodeGap bytes that are
// neither ASCII letters nor digits, and optionally other names or filler
// words ("CVV/CVC: 737", "cvv code 737", "cvv is 737"). Text that holds
// \u escapes is read twice, as written and with every escape of an ASCII
// character decoded (codeText), so that `"cvv":"\u0037\u0033\u0037"` and
// `\\u0063vv 737` hold a code too.

// maxCodeGap bounds the punctuation between a name and its code: enough for
// `\\\": \\\"` (a member twice JSON-escaped), short enough not to join a
// name with an unrelated number further on.
const maxCodeGap = 12

// codeWords are the one-word names of a security code; a name may also be
// "security code" in any case and spelling (see isSecurityCodeRun).
// Longer names come first (see gluedCode).
var codeWords = []string{"cvv2", "cvc2", "cvn2", "cav2", "cvv", "cvc", "cvn", "cvd", "csc"}

// codeFillers may stand between a name and its code.
var codeFillers = []string{"is", "code", "number", "no", "value", "was"}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// alnumEnd returns the end of the ASCII letters and digits starting at i.
func alnumEnd(s string, i int) int {
	for i < len(s) && isAlnum(s[i]) {
		i++
	}
	return i
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// hasSuffixFold reports whether s ends with the lower-case word w, in any
// case, at a word boundary: the start of s or a camelCase boundary ("cardCvv",
// "cardCVV").
func hasSuffixFold(s, w string) bool {
	if len(s) < len(w) || !strings.EqualFold(s[len(s)-len(w):], w) {
		return false
	}
	k := len(s) - len(w)
	return k == 0 || isUpper(s[k]) && isLower(s[k-1])
}

// nameEnd reports whether the run s[a:b] is, or ends with, the name of a
// security code, and where the name ends ("security code" spans two runs).
func nameEnd(s string, a, b int) (int, bool) {
	run := s[a:b]
	switch run[len(run)-1] | 0x20 { // the last letter of every name: a cheap filter
	case 'v', 'c', 'n', 'd', '2', 'e', 'y':
	default:
		return 0, false
	}
	for _, w := range codeWords {
		if hasSuffixFold(run, w) {
			return b, true
		}
	}
	if len(run) >= len("securitycode") && strings.EqualFold(run[len(run)-len("securitycode"):], "securitycode") {
		return b, true
	}
	if hasSuffixFold(run, "security") && b+1 < len(s) && !isAlnum(s[b]) && s[b] != '\\' {
		if e := alnumEnd(s, b+1); strings.EqualFold(s[b+1:e], "code") {
			return e, true
		}
	}
	return 0, false
}

// gluedCode finds a code written right after its name: "cvv737". Short
// names are tried first, so that "cvv2123" masks 2123: the more digits the
// safer.
func gluedCode(s string, a, b int) (Match, bool) {
	run := s[a:b]
	if len(run) < 6 || run[0]|0x20 != 'c' || run[len(run)-1]-'0' > 9 {
		return Match{}, false
	}
	for i := len(codeWords) - 1; i >= 0; i-- {
		w := codeWords[i]
		if len(run) < len(w)+3 || !strings.EqualFold(run[:len(w)], w) {
			continue
		}
		if d := run[len(w):]; len(d) <= 4 && allDigits(d) {
			return Match{Kind: KindSecurityCode, Start: a + len(w), End: b}, true
		}
	}
	return Match{}, false
}

// codeAfter finds the code that follows a name ending at e.
func codeAfter(s string, e int) (Match, bool) {
	for step := 0; step < 4; step++ {
		g := e
		for g < len(s) && !isAlnum(s[g]) {
			if g-e >= maxCodeGap {
				return Match{}, false
			}
			g++
		}
		if g >= len(s) {
			return Match{}, false
		}
		end := alnumEnd(s, g)
		word := s[g:end]
		if allDigits(word) {
			if len(word) == 3 || len(word) == 4 {
				return Match{Kind: KindSecurityCode, Start: g, End: end}, true
			}
			return Match{}, false
		}
		if ne, ok := nameEnd(s, g, end); ok {
			e = ne
			continue
		}
		if !isFiller(word) {
			return Match{}, false
		}
		e = end
	}
	return Match{}, false
}

func isFiller(w string) bool {
	for _, f := range codeFillers {
		if strings.EqualFold(w, f) {
			return true
		}
	}
	return false
}

// nextCode returns the first security code in free text at or after from.
func nextCode(s string, from int) (Match, bool) {
	for i := from; i < len(s); {
		if !isAlnum(s[i]) {
			i++
			continue
		}
		b := alnumEnd(s, i)
		a := i
		if i > 0 && s[i-1] == '\\' { // the run starts with an escape's letter (\ncvv)
			a = i + 1
			if s[i] == 'u' {
				a = i + 5
			}
		}
		if a < b {
			if m, ok := gluedCode(s, a, b); ok {
				return m, true
			}
			if e, ok := nameEnd(s, a, b); ok {
				if m, ok := codeAfter(s, e); ok {
					return m, true
				}
			}
		}
		i = b
	}
	return Match{}, false
}

// codeText is a text read for security codes: as written and, when it
// holds \u escapes, decoded — every escape of an ASCII character, at any
// level of escaping (`\u0037`, `\\u0037`), read as that character. dec is
// the decoded text ("" when s holds no escape) and at[i] the offset in s of
// dec[i], at[len(dec)] = len(s), so a code found in dec is masked in s
// escapes and all.
type codeText struct {
	s   string
	dec string
	at  []int
}

func newCodeText(s string) codeText {
	t := codeText{s: s}
	if !strings.Contains(s, `\u`) {
		return t
	}
	dec := make([]byte, 0, len(s))
	t.at = make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		c, n := asciiEscapeAt(s, i)
		dec = append(dec, c)
		t.at = append(t.at, i)
		i += n
	}
	t.dec, t.at = string(dec), append(t.at, len(s))
	return t
}

// asciiEscapeAt reads the character at s[i]: a run of backslashes, 'u' and
// four hex digits naming an ASCII character stands for that character;
// anything else for its first byte.
func asciiEscapeAt(s string, i int) (byte, int) {
	j := i
	for j < len(s) && s[j] == '\\' {
		j++
	}
	if j == i || j+5 > len(s) || s[j] != 'u' {
		return s[i], 1
	}
	var r int
	for _, h := range []byte(s[j+1 : j+5]) {
		v, ok := hexValue(h)
		if !ok {
			return s[i], 1
		}
		r = r<<4 | int(v)
	}
	if r >= 0x80 {
		return s[i], 1
	}
	return byte(r), j + 5 - i
}

// next returns the first security code at or after from in either reading;
// of two starting at the same place, the longer.
func (t codeText) next(from int) (Match, bool) {
	m, ok := nextCode(t.s, from)
	if t.dec == "" {
		return m, ok
	}
	i := sort.SearchInts(t.at, from)
	d, okDec := nextCode(t.dec, i)
	if !okDec {
		return m, ok
	}
	d.Start, d.End = t.at[d.Start], t.at[d.End]
	if !ok || d.Start < m.Start || d.Start == m.Start && d.End > m.End {
		return d, true
	}
	return m, true
}
