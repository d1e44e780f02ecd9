package codec

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/twmb/avro"

	"github.com/paysession/paysession/internal/sensitive"
)

// ValueProtection says what a dead letter's original_value holds.
type ValueProtection string

// Dead-letter value protections.
const (
	// ValueOriginal: the value is the command's bytes as written (nothing
	// sensitive was found).
	ValueOriginal ValueProtection = "original"
	// ValueMasked: card numbers keep bin and last4 only and security codes
	// are replaced by "***"; the rest of the value is as written (JSON text
	// is edited in place, Avro is re-encoded with the writer schema).
	ValueMasked ValueProtection = "masked"
	// ValueWithheld: the value could not be read reliably (undecodable Avro,
	// unknown binary format) and is left out (empty).
	ValueWithheld ValueProtection = "withheld"
)

// maskedSecret replaces a security code wherever one is found.
const maskedSecret = "***"

// maskOpts decode Avro into maps and keep each union value under its
// branch name ({"string": "x"}, {"io.paysession.v1.Card": {...}}), so that
// the masked tree encodes again with the same branches, byte for byte.
var maskOpts = []avro.Opt{avro.TaggedUnions()}

// ProtectValue returns a copy of a command value that is safe to keep on the
// dead-letter topic. In every string and number, card numbers keep bin and
// last4 only and security codes written after their name ("cvv 737") become
// "***" (sensitive.MaskText: Luhn-valid 12–19 digits, also grouped by any
// single separator — "4111.1111.1111.1111", "4111/1111/1111/1111" — or
// JSON-escaped); the value of every member or field named as a security code
// in any case and spelling ("security_code", "Security_Code", "securityCode",
// "CVV2": sensitive.IsSecurityCodeName) becomes "***". JSON text is edited in
// place; Avro values (single-object, or Confluent when d has a registry) are
// decoded with their writer schema, masked and re-encoded with it. A value
// that cannot be read reliably is withheld (nil). When nothing is found the
// value is returned as is with ValueOriginal. d may be nil.
func (d *Decoder) ProtectValue(ctx context.Context, value []byte) ([]byte, ValueProtection) {
	if len(value) == 0 {
		return value, ValueOriginal
	}
	switch DetectFormat(value) {
	case FormatJSON:
		return protectJSON(value)
	case FormatSingleObject:
		return protectAvro(value, 10, singleObjectWriter(value))
	case FormatConfluent:
		return protectAvro(value, 5, d.confluentWriter(ctx, value))
	default:
		if !utf8.Valid(value) {
			return nil, ValueWithheld
		}
		return protectText(value)
	}
}

// ProtectValue is (*Decoder)(nil).ProtectValue: Confluent values, whose
// writer schema needs the registry, are withheld.
func ProtectValue(value []byte) ([]byte, ValueProtection) {
	return (*Decoder)(nil).ProtectValue(context.Background(), value)
}

func singleObjectWriter(value []byte) *avro.Schema {
	if len(value) < 10 || !bytes.Equal(value[:2], soeMagic) {
		return nil
	}
	p, err := loadSchemas()
	if err != nil {
		return nil
	}
	var fp [8]byte
	copy(fp[:], value[2:10])
	for _, byFP := range p.byFingerprint {
		if s, ok := byFP[fp]; ok {
			return s
		}
	}
	return nil
}

func (d *Decoder) confluentWriter(ctx context.Context, value []byte) *avro.Schema {
	if d == nil || d.registry == nil || len(value) < 5 {
		return nil
	}
	s, err := d.writerSchema(ctx, int(binary.BigEndian.Uint32(value[1:5])))
	if err != nil {
		return nil
	}
	return s
}

// protectAvro masks an Avro value whose header is hdr bytes long.
func protectAvro(value []byte, hdr int, writer *avro.Schema) ([]byte, ValueProtection) {
	if writer == nil {
		return nil, ValueWithheld
	}
	var tree any
	if _, err := writer.Decode(value[hdr:], &tree, maskOpts...); err != nil {
		return nil, ValueWithheld
	}
	if checkBooleans(FormatUnknown, writer, value[hdr:]) != nil {
		return nil, ValueWithheld // re-encoding would change what the value says
	}
	masked, ok := maskAvroTree(tree, false)
	if !ok {
		return nil, ValueWithheld
	}
	out, err := writer.AppendEncode(append(make([]byte, 0, len(value)), value[:hdr]...), masked, maskOpts...)
	if err != nil {
		return nil, ValueWithheld
	}
	if bytes.Equal(out, value) {
		return value, ValueOriginal
	}
	return out, ValueMasked // something masked, or trailing bytes dropped
}

// maskAvroTree masks a generically decoded Avro value. secret marks the subtree
// of a security-code field. It reports false for what it cannot mask.
func maskAvroTree(v any, secret bool) (any, bool) {
	switch x := v.(type) {
	case nil, bool, int, int32, int64, float32, float64:
		if secret && x != nil && x != false {
			return nil, false // a numeric security code cannot be masked in its type
		}
		return v, true
	case string:
		if secret {
			return maskedSecret, true
		}
		return sensitive.MaskText(x), true
	case []byte:
		if secret {
			return []byte(maskedSecret), true
		}
		if m := sensitive.MaskText(string(x)); m != string(x) {
			return []byte(m), true
		}
		return x, true
	case []any:
		for i := range x {
			m, ok := maskAvroTree(x[i], secret)
			if !ok {
				return nil, false
			}
			x[i] = m
		}
		return x, true
	case map[string]any:
		for k, e := range x {
			if sensitive.MaskText(k) != k {
				return nil, false // card data as a map key
			}
			m, ok := maskAvroTree(e, secret || sensitive.IsSecurityCodeName(k))
			if !ok {
				return nil, false
			}
			x[k] = m
		}
		return x, true
	default:
		// Logical types (time.Time, *big.Rat, ...) hold no text.
		return v, !secret
	}
}

// protectText masks text that is not valid JSON: card data anywhere
// (sensitive.MaskText) and the values of members named as security codes
// (maskCodeMembers). Escaped digits cannot be checked there: such a value is
// withheld.
func protectText(value []byte) ([]byte, ValueProtection) {
	s := string(value)
	if strings.Contains(s, `\u00`) {
		return nil, ValueWithheld
	}
	m := maskCodeMembers(sensitive.MaskText(s))
	if m == s {
		return value, ValueOriginal
	}
	return []byte(m), ValueMasked
}

// maskCodeMembers replaces the value of every member named as a security
// code in JSON text that does not parse — the value may be cut off, or not
// a string — with "***".
func maskCodeMembers(s string) string {
	var b strings.Builder
	prev := 0
	for i := 0; i < len(s); {
		if s[i] != '"' {
			i++
			continue
		}
		nameEnd := quotedEnd(s, i)
		name := s[i+1 : max(i+1, nameEnd-1)]
		j := skipSpace(s, nameEnd)
		if j >= len(s) || s[j] != ':' || !sensitive.IsSecurityCodeName(name) {
			i = nameEnd
			continue
		}
		start := skipSpace(s, j+1)
		end := valueEnd(s, start)
		b.WriteString(s[prev:start])
		b.WriteString(`"` + maskedSecret + `"`)
		prev, i = end, end
	}
	if prev == 0 {
		return s
	}
	b.WriteString(s[prev:])
	return b.String()
}

// valueEnd returns the end of the JSON value starting at s[i]: a string,
// an object or array (to its closing bracket, or len(s) when it is cut off)
// or a scalar.
func valueEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return quotedEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = quotedEnd(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	end := i
	for end < len(s) && strings.IndexByte(" \t\r\n,}]", s[end]) < 0 {
		end++
	}
	return end
}

// quotedEnd returns the end of the JSON string starting at s[i] (a quote):
// after its closing quote, or len(s) when it is cut off.
func quotedEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}

func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
		i++
	}
	return i
}

// jsonEdit replaces value[start:end] with text. It also says where the
// masked token stands (path) and why (secret), so that validation refuses
// what a dead letter would mask (Metadata.cardData).
type jsonEdit struct {
	start, end int
	text       string
	path       string // ".note", "[2].ref", ".*" (memberSegment); "" for the document itself
	secret     bool   // a scalar under a member named as a security code
	value      string // the token as decoded: a string, a number's text or a member name
}

// jsonFrame is an open object or array while walking JSON tokens.
type jsonFrame struct {
	object    bool
	expectKey bool
	secret    bool   // inside the value of a member named as a security code
	member    string // an object's current member name
	index     int    // an array's current element
}

// protectJSON masks a JSON value in place: strings and numbers holding card
// data, and every scalar under a member named as a security code. Text that
// does not parse as JSON is masked as text.
func protectJSON(value []byte) ([]byte, ValueProtection) {
	edits, ok := jsonEdits(value)
	if !ok {
		return protectText(value)
	}
	if len(edits) == 0 {
		return value, ValueOriginal
	}
	return applyEdits(value, edits), ValueMasked
}

// applyEdits returns value with the edits (in order, not overlapping) made.
func applyEdits(value []byte, edits []jsonEdit) []byte {
	var b bytes.Buffer
	prev := 0
	for _, e := range edits {
		b.Write(value[prev:e.start])
		b.WriteString(e.text)
		prev = e.end
	}
	b.Write(value[prev:])
	return b.Bytes()
}

// jsonEdits walks the tokens of one JSON value and lists the edits that mask
// it. It reports false when the text is not exactly one JSON value.
func jsonEdits(value []byte) ([]jsonEdit, bool) {
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	var stack []jsonFrame
	var edits []jsonEdit
	prev, keyIsCode := 0, false // keyIsCode: the last member name names a security code
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		start := tokenStart(value, prev, end)
		prev = end
		var top *jsonFrame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		secret := top != nil && (top.secret || (top.object && keyIsCode))
		var scalar string
		isScalar := false // a string or a number: what may hold card data
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, jsonFrame{object: t == '{', expectKey: t == '{', secret: secret})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.object && top.expectKey {
				keyIsCode, top.expectKey, top.member = sensitive.IsSecurityCodeName(t), false, t
				if e, ok := maskJSONScalar(t, false, start, end); ok {
					e.path, e.value = jsonPath(stack), t // card data as a member name
					edits = append(edits, e)
				}
				continue
			}
			scalar, isScalar = t, true
		case json.Number:
			scalar, isScalar = string(t), true
		}
		if isScalar {
			if e, ok := maskJSONScalar(scalar, secret, start, end); ok {
				e.path, e.secret, e.value = jsonPath(stack), secret, scalar
				edits = append(edits, e)
			}
		}
		if len(stack) > 0 { // a value of the enclosing object or array ended
			if top := &stack[len(stack)-1]; top.object {
				top.expectKey = true
			} else {
				top.index++
			}
		}
	}
	if len(stack) != 0 || len(bytes.TrimSpace(value[prev:])) > 0 {
		return nil, false
	}
	return edits, true
}

// jsonPath names the value being read: ".member" per object (a name that
// cannot be published is "*": memberSegment) and "[i]" per array.
func jsonPath(stack []jsonFrame) string {
	var b strings.Builder
	for _, f := range stack {
		if f.object {
			b.WriteString("." + memberSegment(f.member))
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	return b.String()
}

// tokenStart finds where the token ending at end starts: after the
// whitespace, commas and colons that follow the previous token.
func tokenStart(value []byte, prev, end int) int {
	for prev < end && strings.IndexByte(" \t\r\n,:", value[prev]) >= 0 {
		prev++
	}
	return prev
}

// maskJSONScalar returns the edit that masks a string or number, if any.
func maskJSONScalar(s string, secret bool, start, end int) (jsonEdit, bool) {
	if secret {
		return jsonEdit{start: start, end: end, text: `"` + maskedSecret + `"`}, true
	}
	m := sensitive.MaskText(s)
	if m == s {
		return jsonEdit{}, false
	}
	q, _ := json.Marshal(m) // always a valid string
	return jsonEdit{start: start, end: end, text: string(q)}, true
}

// ProtectHeader returns a header value of a dead-lettered record that is
// safe to keep on the dead letter: "***" when the header is named as a
// security code ("X-Card-CVV", "security-code"), else the value with card
// data masked as text (sensitive.MaskText). masked reports a change.
func ProtectHeader(key string, value []byte) (out []byte, masked bool) {
	if sensitive.IsSecurityCodeName(key) && len(value) > 0 {
		return []byte(maskedSecret), true
	}
	if !utf8.Valid(value) {
		if sensitive.ContainsCard(string(value)) {
			return nil, true
		}
		return value, false
	}
	if m := sensitive.MaskText(string(value)); m != string(value) {
		return []byte(m), true
	}
	return value, false
}
