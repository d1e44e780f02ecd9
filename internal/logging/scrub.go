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
// become "[redacted PEM <type>]"; card numbers — 12 to 19 Luhn-valid digits,
// also grouped by any single separator ("4111.1111.1111.1111") or
// JSON-escaped — keep at most their first six and last four digits; a digit
// run longer than 19 that holds a Luhn-valid 12–19 digit window is starred
// whole; a security code after its name ("cvv 737", `"Security_Code":"737"`)
// becomes "***". The matcher is sensitive.MaskText, the codec's too. Text
// without card data comes back as is, without allocating.
func RedactString(s string) string {
	if strings.Contains(s, "-----BEGIN ") {
		s = pemBlock.ReplaceAllStringFunc(s, func(m string) string {
			return "[redacted PEM " + pemBlock.FindStringSubmatch(m)[1] + "]"
		})
	}
	return sensitive.MaskText(s)
}
