package codec

import (
	"fmt"
	"strings"
	"sync"

	"github.com/twmb/avro"
)

// The Avro library reads a boolean byte other than 0 and 1 as false, as
// Java does; the codec has always refused it (a byte 0x7f in is_fast is not
// a payout the producer can be said to have asked for, and another reader
// may take it for true). checkBooleans walks a decoded value's bytes with
// its writer schema and refuses such a byte, naming the field. The walk
// runs after the library decoded the same bytes, so every length in them is
// already known to fit; it is still bounded by the input on its own.

// wireWalk consumes one value from src and returns the rest.
type wireWalk func(src []byte) ([]byte, *wireProblem)

// wireProblem is a non-canonical boolean, or bytes that end early.
type wireProblem struct {
	path   string
	reason string
}

func (p *wireProblem) in(name string) *wireProblem {
	if p.path == "" {
		p.path = name
	} else {
		p.path = name + "." + p.path
	}
	return p
}

func errShortWire() *wireProblem { return &wireProblem{reason: "bytes end inside a value"} }

// boolWalks caches the walk of each writer schema; nil means the schema holds
// no boolean and needs none.
var boolWalks sync.Map // *avro.Schema -> wireWalk

// checkBooleans returns a *DecodeError of format f when data, written with
// writer, holds a boolean byte other than 0 or 1.
func checkBooleans(f Format, writer *avro.Schema, data []byte) error {
	walk, ok := boolWalks.Load(writer)
	if !ok {
		walk, _ = boolWalks.LoadOrStore(writer, compileBoolWalk(writer.Root()))
	}
	w := walk.(wireWalk)
	if w == nil {
		return nil
	}
	if _, p := w(data); p != nil {
		return &DecodeError{Format: f, Field: p.path, Reason: "malformed Avro data: " + p.reason}
	}
	return nil
}

// compileBoolWalk returns the walk of root, or nil when it holds no boolean.
// References to named types are expanded first; those left (a recursive
// type, or a tree too large to expand) are looked up by name as Avro
// resolves them: a name without a dot in the enclosing namespace first.
func compileBoolWalk(root *avro.SchemaNode) wireWalk {
	root = root.ExpandReferences()
	c := &walkCompiler{named: map[string]*avro.SchemaNode{}, walks: map[string]*wireWalk{}}
	c.collect(root)
	if !c.hasBool {
		return nil
	}
	return c.compile(root, "")
}

type walkCompiler struct {
	named   map[string]*avro.SchemaNode // full name -> definition
	walks   map[string]*wireWalk        // full name -> its walk, filled once compiled
	hasBool bool
}

func (c *walkCompiler) collect(n *avro.SchemaNode) {
	switch n.Type {
	case "boolean":
		c.hasBool = true
	case "record", "error", "enum", "fixed":
		if _, ok := c.named[fullName(n)]; ok {
			return
		}
		c.named[fullName(n)] = n
		for i := range n.Fields {
			c.collect(&n.Fields[i].Type)
		}
	case "array":
		c.collect(n.Items)
	case "map":
		c.collect(n.Values)
	case "union":
		for i := range n.Branches {
			c.collect(&n.Branches[i])
		}
	}
}

// compile returns the walk of n; ns is the namespace n's names resolve in.
func (c *walkCompiler) compile(n *avro.SchemaNode, ns string) wireWalk {
	switch n.Type {
	case "null":
		return func(src []byte) ([]byte, *wireProblem) { return src, nil }
	case "boolean":
		return walkBoolean
	case "int", "long", "enum":
		return func(src []byte) ([]byte, *wireProblem) {
			_, rest, err := readLong(src)
			return rest, err
		}
	case "float":
		return fixedWalk(4)
	case "double":
		return fixedWalk(8)
	case "fixed":
		return fixedWalk(n.Size)
	case "string", "bytes":
		return walkBytes
	case "array":
		return blocksWalk(c.compile(n.Items, ns), nil)
	case "map":
		return blocksWalk(c.compile(n.Values, ns), walkBytes)
	case "union":
		branches := make([]wireWalk, len(n.Branches))
		for i := range n.Branches {
			branches[i] = c.compile(&n.Branches[i], ns)
		}
		return func(src []byte) ([]byte, *wireProblem) {
			i, rest, p := readLong(src)
			if p != nil {
				return nil, p
			}
			if i < 0 || i >= int64(len(branches)) {
				return nil, &wireProblem{reason: fmt.Sprintf("union index %d out of range", i)}
			}
			return branches[i](rest)
		}
	case "record", "error":
		return c.record(n)
	}
	// A reference to a named type defined elsewhere in the schema.
	def, ok := c.named[n.Type]
	if q, found := c.named[ns+"."+n.Type]; found && ns != "" && !strings.Contains(n.Type, ".") {
		def, ok = q, true
	}
	if !ok {
		return func([]byte) ([]byte, *wireProblem) {
			return nil, &wireProblem{reason: "reference to unknown type " + n.Type}
		}
	}
	if def.Type == "record" || def.Type == "error" {
		return c.record(def)
	}
	return c.compile(def, def.Namespace)
}

// record compiles a record once per full name; a recursive reference calls
// the walk through its slot, filled when the record's fields are compiled.
func (c *walkCompiler) record(n *avro.SchemaNode) wireWalk {
	name := fullName(n)
	if slot, ok := c.walks[name]; ok {
		return func(src []byte) ([]byte, *wireProblem) { return (*slot)(src) }
	}
	slot := new(wireWalk)
	c.walks[name] = slot
	type field struct {
		name string
		walk wireWalk
	}
	fields := make([]field, len(n.Fields))
	for i := range n.Fields {
		fields[i] = field{name: n.Fields[i].Name, walk: c.compile(&n.Fields[i].Type, n.Namespace)}
	}
	*slot = func(src []byte) ([]byte, *wireProblem) {
		for _, f := range fields {
			var p *wireProblem
			if src, p = f.walk(src); p != nil {
				return nil, p.in(f.name)
			}
		}
		return src, nil
	}
	return *slot
}

func walkBoolean(src []byte) ([]byte, *wireProblem) {
	if len(src) == 0 {
		return nil, errShortWire()
	}
	if src[0] > 1 {
		return nil, &wireProblem{reason: fmt.Sprintf("invalid boolean byte 0x%02x", src[0])}
	}
	return src[1:], nil
}

func fixedWalk(size int) wireWalk {
	return func(src []byte) ([]byte, *wireProblem) {
		if len(src) < size {
			return nil, errShortWire()
		}
		return src[size:], nil
	}
}

func walkBytes(src []byte) ([]byte, *wireProblem) {
	n, rest, p := readLong(src)
	if p != nil {
		return nil, p
	}
	if n < 0 || n > int64(len(rest)) {
		return nil, errShortWire()
	}
	return rest[n:], nil
}

// blocksWalk walks array (key nil) or map blocks. A block with a negative
// count carries its byte size and is walked item by item all the same.
func blocksWalk(item, key wireWalk) wireWalk {
	return func(src []byte) ([]byte, *wireProblem) {
		zeroWidth := 0
		for {
			count, rest, p := readLong(src)
			if p != nil {
				return nil, p
			}
			src = rest
			if count == 0 {
				return src, nil
			}
			if count < 0 {
				if count == -1<<63 {
					return nil, errShortWire()
				}
				count = -count
				if _, src, p = readLong(src); p != nil { // block byte size
					return nil, p
				}
			}
			for ; count > 0; count-- {
				if key != nil {
					if src, p = key(src); p != nil {
						return nil, p
					}
				}
				before := len(src)
				if src, p = item(src); p != nil {
					return nil, p
				}
				if len(src) == before {
					if zeroWidth++; zeroWidth > maxZeroWidthItems {
						return nil, &wireProblem{reason: "too many zero-byte items"}
					}
				}
			}
		}
	}
}

// maxZeroWidthItems bounds the items of a block that take no bytes (nulls,
// empty records), whose count the input cannot bound.
const maxZeroWidthItems = 4 << 10

// readLong reads a zig-zag varint long.
func readLong(src []byte) (int64, []byte, *wireProblem) {
	var u uint64
	for i := 0; i < 10; i++ {
		if i >= len(src) {
			return 0, nil, errShortWire()
		}
		b := src[i]
		u |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return int64(u>>1) ^ -int64(u&1), src[i+1:], nil
		}
	}
	return 0, nil, &wireProblem{reason: "varint longer than 10 bytes"}
}
