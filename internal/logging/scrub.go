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
// become "[redacted PEM <type>]", and card numbers — runs of 12 to 19 digits
// (single spaces or dashes between digits allowed) that pass the Luhn check —
// keep at most their first six and last four digits. A longer digit run that
// contains a Luhn-valid 12–19 digit window is masked whole: false positives
// cost a number in a log line, false negatives cost a card.
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
	last := 0
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		end, digits := digitRun(s, i)
		if m, ok := maskRun(s[i:end], digits); ok {
			b.WriteString(s[last:i])
			b.WriteString(m)
			last = end
		}
		i = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
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

// digitRun returns the end of the digit run starting at i (single ' ' or '-'
// between digits continue it) and its digits.
func digitRun(s string, i int) (int, string) {
	var d []byte
	j := i
	for j < len(s) {
		switch {
		case isDigit(s[j]):
			d = append(d, s[j])
			j++
		case (s[j] == ' ' || s[j] == '-') && j+1 < len(s) && isDigit(s[j+1]):
			j++
		default:
			return j, string(d)
		}
	}
	return j, string(d)
}

// maskRun returns the masked form of run when its digits hold a card number.
func maskRun(run, digits string) (string, bool) {
	n := len(digits)
	if n < 12 {
		return "", false
	}
	if n <= 19 && luhn(digits) {
		return sensitive.PAN(digits).Masked(), true
	}
	for w := 12; w <= 19 && w <= n; w++ {
		for k := 0; k+w <= n; k++ {
			if luhn(digits[k : k+w]) {
				return strings.Repeat("*", n), true
			}
		}
	}
	return "", false
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
