package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/paysession/paysession/internal/sensitive"
)

// Strict JSON is what the architecture promises for commands and what
// encoding/json alone does not give: encoding/json matches member names
// case-insensitively, lets the last of duplicate members win, and turns
// invalid UTF-8 and lone surrogate escapes into U+FFFD. checkStrictJSON
// reads a command document once, before encoding/json decodes it, and
// rejects exactly those: a member name must equal a schema field name
// (after JSON unescaping) byte for byte, no object has two members of the
// same name, and every string, member names included, is valid UTF-8 with
// no lone surrogate escape. The same reader checks metadata documents
// carried as Avro strings (see checkStrictStrings).

// strictMaxDepth bounds nesting like encoding/json does, so that a hostile
// value cannot grow the stack without bound.
const strictMaxDepth = 10000

// strictNameMax bounds how much of an unexpected member name an error
// quotes: results and dead-letter headers stay small.
const strictNameMax = 64

// errStrictSyntax means the reader met something that is not JSON. The
// reader does not describe it: encoding/json does, with an offset.
var errStrictSyntax = errors.New("invalid JSON")

// strictProblem is a strictness violation; segs is the field path,
// innermost segment first, completed on the way out of the document.
type strictProblem struct {
	segs   []string
	reason string
}

func (p *strictProblem) Error() string { return p.reason }

// in adds the segment that contains the problem: a member name or "[i]".
func (p *strictProblem) in(seg string) *strictProblem {
	p.segs = append(p.segs, seg)
	return p
}

// decodeError returns p as the *DecodeError of format f, naming the dotted
// field path ("customer.emails[1]"). A member name that cannot stand in a
// published path (memberSegment) is "*" there, and quoted in the reason
// instead, which the error's text scrubs.
func (p *strictProblem) decodeError(f Format) *DecodeError {
	var b strings.Builder
	reason, hidden := p.reason, false
	for i := len(p.segs) - 1; i >= 0; i-- {
		s := p.segs[i]
		if !strings.HasPrefix(s, "[") {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			if m := memberSegment(s); m != s {
				if !hidden {
					reason, hidden = fmt.Sprintf("%s (member name %q)", reason, s), true
				}
				s = m
			}
		}
		b.WriteString(s)
	}
	return &DecodeError{Format: f, Field: sensitive.FieldPath(b.String()), Reason: reason}
}

// Strictness reasons.
const (
	reasonBadUTF8       = "string is not valid UTF-8"
	reasonBadNameUTF8   = "member name is not valid UTF-8"
	reasonSurrogate     = "lone surrogate escape: string is not valid Unicode"
	reasonNameSurrogate = "member name has a lone surrogate escape: not valid Unicode"
	reasonDuplicate     = "duplicate member"
	reasonInDocument    = " inside the field's JSON document"
)

// strictKind says what a place of a command document holds.
type strictKind uint8

const (
	strictScalar   strictKind = iota // string, number, boolean or null (encoding/json checks which)
	strictObject                     // a struct: members are its schema fields
	strictArray                      // a slice: elements have elem's shape
	strictDocument                   // free JSON (metadata): any member names, still no duplicates
)

// strictShape is what the reader expects at one place of a document,
// derived once per Go type from its json tags (equal to its Avro field
// names, which TestJSONNamesAreSchemaFields checks).
type strictShape struct {
	kind   strictKind
	fields []strictField // strictObject
	elem   *strictShape  // strictArray
}

type strictField struct {
	name  string
	shape *strictShape
}

// field returns the index of the field named name, or -1.
func (s *strictShape) field(name []byte) int {
	for i := range s.fields {
		if s.fields[i].name == string(name) {
			return i
		}
	}
	return -1
}

// unknown explains an unexpected member name, pointing at the field that
// differs only in case when there is one.
func (s *strictShape) unknown(name []byte) string {
	for _, f := range s.fields {
		if strings.EqualFold(f.name, string(name)) {
			return fmt.Sprintf("unknown field (member names are case-sensitive: did you mean %q?)", f.name)
		}
	}
	return "unknown field"
}

var (
	strictShapes     sync.Map // reflect.Type -> *strictShape
	unmarshalerType  = reflect.TypeFor[json.Unmarshaler]()
	strictScalarLeaf = &strictShape{kind: strictScalar}
	strictDocLeaf    = &strictShape{kind: strictDocument}
)

// shapeOf returns the shape of a JSON document decoded into a value of t.
func shapeOf(t reflect.Type) *strictShape {
	if s, ok := strictShapes.Load(t); ok {
		return s.(*strictShape)
	}
	s, _ := strictShapes.LoadOrStore(t, buildShape(t))
	return s.(*strictShape)
}

func buildShape(t reflect.Type) *strictShape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return strictDocLeaf // Metadata: a document of its own
	case t.Kind() == reflect.Struct:
		s := &strictShape{kind: strictObject}
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			s.fields = append(s.fields, strictField{name: name, shape: buildShape(f.Type)})
		}
		if len(s.fields) > 64 {
			panic(fmt.Sprintf("codec: %s has more than 64 fields, too many for strict JSON's duplicate check", t))
		}
		return s
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		return &strictShape{kind: strictArray, elem: buildShape(t.Elem())}
	}
	return strictScalarLeaf
}

// checkStrictJSON reads the JSON document at the start of data against the
// shape of t. It returns nil, errStrictSyntax, or a *DecodeError naming the
// field. It does not allocate for a valid command without escaped member
// names or metadata.
func checkStrictJSON(data []byte, t reflect.Type) error {
	r := strictReader{data: data}
	err := r.value(shapeOf(t))
	if p, ok := err.(*strictProblem); ok {
		return p.decodeError(FormatJSON)
	}
	return err
}

// checkStrictDocument checks a free JSON document (metadata carried as an
// Avro string). A document that is not JSON passes: validation reports it.
func checkStrictDocument(doc string) *strictProblem {
	r := strictReader{data: []byte(doc)}
	if p, ok := r.any().(*strictProblem); ok {
		p.segs = nil // member names are free: the field is the document
		p.reason += reasonInDocument
		return p
	}
	return nil
}

// strictReader walks one JSON value. It validates JSON syntax enough to
// find where every string, member and value starts and ends; encoding/json
// validates the rest (numbers) afterwards.
type strictReader struct {
	data  []byte
	pos   int
	depth int
}

func (r *strictReader) skipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// value reads a value that should have shape s.
func (r *strictReader) value(s *strictShape) error {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return errStrictSyntax
	}
	switch c := r.data[r.pos]; {
	case c == '{' && s.kind == strictObject:
		return r.object(s)
	case c == '[' && s.kind == strictArray:
		return r.array(s)
	case c == '"':
		_, _, err := r.str(false)
		return err
	case c == '{' || c == '[':
		// Free JSON, or an object or array where the schema wants
		// something else (encoding/json reports the type).
		err := r.any()
		if p, ok := err.(*strictProblem); ok && s.kind == strictDocument {
			p.segs = nil
			p.reason += reasonInDocument
		}
		return err
	}
	return r.literal()
}

// open steps into the object or array at r.pos (one level deeper, bounded
// by strictMaxDepth) and reports whether it is empty: then its closer is
// consumed too and the reader is back at the outer level.
func (r *strictReader) open(closer byte) (empty bool, err error) {
	r.pos++
	r.depth++
	if r.depth > strictMaxDepth {
		return false, errStrictSyntax
	}
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == closer {
		r.pos++
		r.depth--
		return true, nil
	}
	return false, nil
}

// object reads the members of a struct-shaped object.
func (r *strictReader) object(s *strictShape) error {
	var seen uint64
	if empty, err := r.open('}'); empty || err != nil {
		return err
	}
	for {
		name, err := r.memberName()
		if err != nil {
			return err
		}
		i := s.field(name)
		switch {
		case i < 0:
			return (&strictProblem{reason: s.unknown(name)}).in(quoteName(name))
		case seen&(1<<i) != 0:
			return (&strictProblem{reason: reasonDuplicate}).in(s.fields[i].name)
		}
		seen |= 1 << i
		if err := r.value(s.fields[i].shape); err != nil {
			if p, ok := err.(*strictProblem); ok {
				p.in(s.fields[i].name)
			}
			return err
		}
		if done, err := r.next('}'); done || err != nil {
			return err
		}
	}
}

// array reads the elements of a slice-shaped array.
func (r *strictReader) array(s *strictShape) error {
	if empty, err := r.open(']'); empty || err != nil {
		return err
	}
	for i := 0; ; i++ {
		if err := r.value(s.elem); err != nil {
			if p, ok := err.(*strictProblem); ok {
				p.in(fmt.Sprintf("[%d]", i))
			}
			return err
		}
		if done, err := r.next(']'); done || err != nil {
			return err
		}
	}
}

// next reads the ',' between members or elements, or the closing byte.
func (r *strictReader) next(closing byte) (done bool, err error) {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return false, errStrictSyntax
	}
	switch r.data[r.pos] {
	case ',':
		r.pos++
		return false, nil
	case closing:
		r.pos++
		r.depth--
		return true, nil
	}
	return false, errStrictSyntax
}

// memberName reads a member name and its ':', returning the name
// unescaped.
func (r *strictReader) memberName() ([]byte, error) {
	name, err := r.rawMemberName()
	if err != nil {
		return nil, err
	}
	if name.escaped {
		return unescape(r.data[name.start:name.end]), nil
	}
	return r.data[name.start:name.end], nil
}

// nameSpan is where a member name's raw content lies in the data.
type nameSpan struct {
	start, end int
	escaped    bool
}

// rawMemberName reads a member name and its ':'.
func (r *strictReader) rawMemberName() (nameSpan, error) {
	r.skipSpace()
	if r.pos >= len(r.data) || r.data[r.pos] != '"' {
		return nameSpan{}, errStrictSyntax
	}
	start := r.pos + 1
	_, escaped, err := r.str(true)
	if err != nil {
		return nameSpan{}, err
	}
	name := nameSpan{start: start, end: r.pos - 1, escaped: escaped}
	r.skipSpace()
	if r.pos >= len(r.data) || r.data[r.pos] != ':' {
		return nameSpan{}, errStrictSyntax
	}
	r.pos++
	return name, nil
}

// sameName reports whether two member names are equal after unescaping.
func (r *strictReader) sameName(a, b nameSpan) bool {
	if !a.escaped && !b.escaped {
		return bytes.Equal(r.data[a.start:a.end], r.data[b.start:b.end])
	}
	return bytes.Equal(r.unescaped(a), r.unescaped(b))
}

func (r *strictReader) unescaped(n nameSpan) []byte {
	if n.escaped {
		return unescape(r.data[n.start:n.end])
	}
	return r.data[n.start:n.end]
}

// any reads a value of any shape: member names are free, duplicates and
// bad strings are not. Its problems name no path.
func (r *strictReader) any() error {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return errStrictSyntax
	}
	switch r.data[r.pos] {
	case '{':
		return r.anyObject()
	case '[':
		if empty, err := r.open(']'); empty || err != nil {
			return err
		}
		for {
			if err := r.any(); err != nil {
				return err
			}
			if done, err := r.next(']'); done || err != nil {
				return err
			}
		}
	case '"':
		_, _, err := r.str(false)
		return err
	}
	return r.literal()
}

// strictLinearNames is how many member names of a free object are compared
// one by one before a set takes over (objects of thousands of members stay
// linear in time).
const strictLinearNames = 16

func (r *strictReader) anyObject() error {
	var (
		names [strictLinearNames]nameSpan // the first names, on the stack
		n     int
		set   map[string]struct{} // all names, once there are more
	)
	if empty, err := r.open('}'); empty || err != nil {
		return err
	}
	for {
		name, err := r.rawMemberName()
		if err != nil {
			return err
		}
		switch {
		case n < len(names):
			for _, seen := range names[:n] {
				if r.sameName(seen, name) {
					return &strictProblem{reason: reasonDuplicate}
				}
			}
			names[n] = name
			n++
		case set == nil:
			set = make(map[string]struct{}, 4*strictLinearNames)
			for _, seen := range names {
				set[string(r.unescaped(seen))] = struct{}{}
			}
			fallthrough
		default:
			key := string(r.unescaped(name))
			if _, dup := set[key]; dup {
				return &strictProblem{reason: reasonDuplicate}
			}
			set[key] = struct{}{}
		}
		if err := r.any(); err != nil {
			return err
		}
		if done, err := r.next('}'); done || err != nil {
			return err
		}
	}
}

// literal skips a number, true, false or null.
func (r *strictReader) literal() error {
	start := r.pos
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		if ('0' <= c && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' ||
			('a' <= c && c <= 'z') {
			r.pos++
			continue
		}
		break
	}
	switch lit := r.data[start:r.pos]; {
	case len(lit) == 0:
		return errStrictSyntax
	case lit[0] == '-' || ('0' <= lit[0] && lit[0] <= '9'):
		return nil // encoding/json checks the number's form
	case string(lit) == "true", string(lit) == "false", string(lit) == "null":
		return nil
	}
	return errStrictSyntax
}

// str reads the string starting at r.pos ('"') and returns its raw content
// (escapes not decoded) and whether it has escapes. Invalid UTF-8 and lone
// surrogate escapes are problems; in a member name (isName) the problem
// names the member, as well as it can be read.
func (r *strictReader) str(isName bool) (raw []byte, escaped bool, err error) {
	d := r.data
	start := r.pos + 1
	var nameProblem string
	for i := start; i < len(d); {
		c := d[i]
		if strictPlain[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			r.pos = i + 1
			raw = d[start:i]
			if nameProblem != "" {
				return nil, false, (&strictProblem{reason: nameProblem}).in(quoteName(unescape(raw)))
			}
			return raw, escaped, nil
		case c == '\\':
			escaped = true
			n, ok, lone := escapeLen(d[i:])
			switch {
			case !ok:
				return nil, false, errStrictSyntax
			case lone && !isName:
				return nil, false, &strictProblem{reason: reasonSurrogate}
			case lone && nameProblem == "":
				nameProblem = reasonNameSurrogate
			}
			i += n
		case c < 0x20:
			return nil, false, errStrictSyntax
		default:
			ru, size := utf8.DecodeRune(d[i:])
			if ru == utf8.RuneError && size == 1 {
				if !isName {
					return nil, false, &strictProblem{reason: reasonBadUTF8}
				}
				if nameProblem == "" {
					nameProblem = reasonBadNameUTF8
				}
			}
			i += size
		}
	}
	return nil, false, errStrictSyntax
}

// strictPlain marks the bytes a string's content may hold as they are:
// printable ASCII other than the quote and the backslash.
var strictPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escapeLen returns the length of the escape sequence at the start of b
// (b[0] == '\\'), whether it is well formed, and whether it is a lone
// surrogate. A high surrogate escape followed by a low one is one
// sequence of 12 bytes.
func escapeLen(b []byte) (n int, ok, lone bool) {
	if len(b) < 2 {
		return 0, false, false
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true, false
	case 'u':
	default:
		return 0, false, false
	}
	r1, ok := hex4(b[2:])
	if !ok {
		return 0, false, false
	}
	switch {
	case r1 < 0xD800 || r1 > 0xDFFF:
		return 6, true, false
	case r1 >= 0xDC00:
		return 6, true, true // a low surrogate first
	}
	if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if r2, ok := hex4(b[8:]); ok && 0xDC00 <= r2 && r2 <= 0xDFFF {
			return 12, true, false
		}
	}
	return 6, true, true
}

// hex4 decodes four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unescape decodes the escapes of a string's raw content already checked
// by str; a lone surrogate becomes U+FFFD (only for an error message).
func unescape(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r1, _ := hex4(raw[i+2:])
			if n, _, lone := escapeLen(raw[i:]); n == 12 && !lone {
				r2, _ := hex4(raw[i+8:])
				out = utf8.AppendRune(out, utf16.DecodeRune(r1, r2))
				i += 12
				continue
			}
			out = utf8.AppendRune(out, r1) // U+FFFD for a lone surrogate
			i += 6
			continue
		default: // '"', '\\', '/'
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return out
}

// quoteName returns a member name fit for an error's field path: valid
// UTF-8 (invalid bytes become U+FFFD) and at most strictNameMax bytes.
func quoteName(name []byte) string {
	s := strings.ToValidUTF8(string(name), "\uFFFD")
	if len(s) > strictNameMax {
		cut := strictNameMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
