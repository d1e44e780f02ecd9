package logging

import (
	"regexp"
	"strings"

	"github.com/paysession/paysession/internal/sensitive"
)

// pemBlock matches a PEM block, or a BEGIN line with the rest of the text when
// the END line is missing (a truncated key must not leak either).
var pemBlock = regexp.MustCompile(`(?s)-----BEGIN ([A-Z0-9 ]{1,64})-----.*?(?:-----END [A-Z0-9 ]{1,64}-----|$)`)

// RedactString masks what must never be logged inside free text: PEM blocks
// become "[redacted PEM <type>]", and card numbers — 12 to 19 digits, possibly
// grouped by single spaces or dashes, that pass the Luhn check — keep at most
// their first six and last four digits. A digit run longer than 19 that holds
// a Luhn-valid 12–19 digit window is masked whole: a false positive costs a
// number in a log line, a false negative costs a card.
func RedactString(s string) string {
	if strings.Contains(s, "-----BEGIN ") {
		s = pemBlock.ReplaceAllStringFunc(s, func(m string) string {
			return "[redacted PEM " + pemBlock.FindStringSubmatch(m)[1] + "]"
		})
	}
	if !hasDigitRun(s, 12) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := runEnd(s, i)
		b.WriteString(maskRun(s[i:end]))
		i = end
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hasDigitRun is a cheap pre-check: are there at least n digits at all?
func hasDigitRun(s string, n int) bool {
	c := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			c++
			if c >= n {
				return true
			}
		}
	}
	return false
}

// runEnd returns the end of the digit run starting at i; a single ' ' or '-'
// between digits continues it.
func runEnd(s string, i int) int {
	j := i
	for j < len(s) {
		switch {
		case isDigit(s[j]):
			j++
		case (s[j] == ' ' || s[j] == '-') && j > i && isDigit(s[j-1]) && j+1 < len(s) && isDigit(s[j+1]):
			j++
		default:
			return j
		}
	}
	return j
}

// maskRun masks the card numbers in a run of digit groups: every span of
// whole groups holding 12–19 Luhn-valid digits keeps bin and last4 only, and a
// single group longer than 19 digits holding a Luhn-valid window is starred.
func maskRun(run string) string {
	groups := strings.FieldsFunc(run, func(r rune) bool { return r == ' ' || r == '-' })
	if len(groups) == 1 && len(run) > 19 {
		if hasCardWindow(run) {
			return strings.Repeat("*", len(run))
		}
		return run
	}
	var out []string
	changed := false
	for i := 0; i < len(groups); {
		j, ok := cardSpan(groups, i)
		if !ok {
			out = append(out, groups[i])
			i++
			continue
		}
		out = append(out, sensitive.PAN(strings.Join(groups[i:j+1], "")).Masked())
		changed = true
		i = j + 1
	}
	if !changed {
		return run // nothing masked: keep the original separators
	}
	return strings.Join(out, " ")
}

// cardSpan finds the longest span of groups from i holding a card number.
func cardSpan(groups []string, i int) (int, bool) {
	for j := len(groups) - 1; j >= i; j-- {
		d := strings.Join(groups[i:j+1], "")
		if len(d) >= 12 && len(d) <= 19 && luhn(d) {
			return j, true
		}
	}
	return 0, false
}

func hasCardWindow(d string) bool {
	for w := 12; w <= 19; w++ {
		for k := 0; k+w <= len(d); k++ {
			if luhn(d[k : k+w]) {
				return true
			}
		}
	}
	return false
}

// luhn reports whether the digit string passes the Luhn check.
func luhn(d string) bool {
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}
