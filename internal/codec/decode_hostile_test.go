package codec

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/schemas"
)

// appendLong appends the Avro (zig-zag varint) encoding of n.
func appendLong(b []byte, n int64) []byte {
	return binary.AppendUvarint(b, uint64(n<<1)^uint64(n>>63))
}

// hostileFields are optional fields a compatible evolution of a command
// schema may add, each with the bytes of a hostile value for it: a length
// or block count that the record's few bytes cannot hold.
var hostileFields = []struct {
	name  string
	field string // the field's JSON, named "x"
	value []byte // union index 1 and the value
}{
	{"array<null> of 2^62 items (the reproduction)", `{"name":"x","type":["null",{"type":"array","items":"null"}],"default":null}`,
		appendLong([]byte{2}, 1<<62)},
	{"array<null> of 2^62 items in a sized block", `{"name":"x","type":["null",{"type":"array","items":"null"}],"default":null}`,
		appendLong(appendLong([]byte{2}, -(1<<62)), 0)},
	{"array<null> in 1024 blocks of 4096 items", `{"name":"x","type":["null",{"type":"array","items":"null"}],"default":null}`,
		func() []byte {
			b := []byte{2}
			for range 1 << 10 { // each block is 2 bytes; the record stays small
				b = appendLong(b, 4096)
			}
			return b
		}()},
	{"array of empty records of 2^62 items", `{"name":"x","type":["null",{"type":"array","items":{"type":"record","name":"Empty","fields":[]}}],"default":null}`,
		appendLong([]byte{2}, 1<<62)},
	{"array<string> of 2^31 items", `{"name":"x","type":["null",{"type":"array","items":"string"}],"default":null}`,
		appendLong([]byte{2}, 1<<31)},
	{"map<string> of 2^40 entries", `{"name":"x","type":["null",{"type":"map","values":"string"}],"default":null}`,
		appendLong([]byte{2}, 1<<40)},
	{"map<null> of 2^62 entries", `{"name":"x","type":["null",{"type":"map","values":"null"}],"default":null}`,
		appendLong([]byte{2}, 1<<62)},
	{"bytes of 2^62", `{"name":"x","type":["null","bytes"],"default":null}`, appendLong([]byte{2}, 1<<62)},
	{"string of 2^31", `{"name":"x","type":["null","string"],"default":null}`, appendLong([]byte{2}, 1<<31)},
	{"negative bytes length", `{"name":"x","type":["null","bytes"],"default":null}`, appendLong([]byte{2}, -5)},
}

// withField returns the JSON of schema n with field appended.
func withField(t *testing.T, n schemas.Name, field string) string {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal([]byte(schemas.MustGet(n)), &root); err != nil {
		t.Fatal(err)
	}
	var f any
	if err := json.Unmarshal([]byte(field), &f); err != nil {
		t.Fatal(err)
	}
	root["fields"] = append(root["fields"].([]any), f)
	b, _ := json.Marshal(root)
	return string(b)
}

// decodeBounded runs decode and fails the test when it has not returned
// within a generous bound (the old decoder spun forever on the
// reproduction: the test must fail, not hang the run). It returns the error
// and the bytes allocated meanwhile.
func decodeBounded(t *testing.T, decode func() error) (error, uint64) {
	t.Helper()
	type result struct {
		err   error
		alloc uint64
	}
	done := make(chan result, 1)
	go func() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := decode()
		runtime.ReadMemStats(&after)
		done <- result{err, after.TotalAlloc - before.TotalAlloc}
	}()
	select {
	case r := <-done:
		return r.err, r.alloc
	case <-time.After(30 * time.Second):
		t.Fatal("still decoding after 30 s")
		return nil, 0
	}
}

// TestHostileLengthsAreRefused: a Confluent-framed init_payout whose writer
// schema is a compatible evolution (one optional field more), registered
// under the command topic's subject, with a length or block count far
// beyond what the record holds, is refused with a *DecodeError; decoding
// allocates a bounded amount (not the declared size).
func TestHostileLengthsAreRefused(t *testing.T) {
	reg, cl := newFakeRegistry(t)
	ctx := context.Background()
	topic := KindInitPayout.DefaultTopic()
	body, err := MarshalAvro(sampleCommands()[KindInitPayout])
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hostileFields {
		t.Run(h.name, func(t *testing.T) {
			id, _, err := reg.RegisterSchema(Subject(topic), sr.Schema{Schema: withField(t, KindInitPayout.SchemaName(), h.field)})
			if err != nil {
				t.Fatal(err)
			}
			dec, _ := NewDecoder(DecoderConfig{Registry: cl})
			value := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
			value = append(append(value, body...), 0) // x = null: the evolution decodes
			if _, err := dec.Decode(ctx, topic, KindInitPayout, value); err != nil {
				t.Fatalf("the valid record of the evolved schema: %v", err)
			}
			value = append(value[:len(value)-1], h.value...)
			err, alloc := decodeBounded(t, func() error {
				_, err := dec.Decode(ctx, topic, KindInitPayout, value)
				return err
			})
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%d-byte record: %v (%T), want a *DecodeError", len(value), err, err)
			}
			if alloc > 1<<20 {
				t.Fatalf("%d-byte record: decoding allocated %d bytes", len(value), alloc)
			}
			t.Logf("%d bytes, %d allocated: %v", len(value), alloc, err)
		})
	}
}

// TestHostileLengthsInReaderFields: the same lengths in fields the reader
// decodes (not skips), single-object encoded with the current schema.
func TestHostileLengthsInReaderFields(t *testing.T) {
	dec, _ := NewDecoder(DecoderConfig{})
	hdr, _ := EncodeSingleObject(&Capture{})
	for _, n := range []int64{1 << 62, 1 << 31, 1 << 20, -1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			value := appendLong(append([]byte(nil), hdr[:10]...), n) // session_id's length
			err, alloc := decodeBounded(t, func() error {
				_, err := dec.Decode(context.Background(), "", KindCapture, value)
				return err
			})
			var de *DecodeError
			if !errors.As(err, &de) || de.Field != "session_id" {
				t.Fatalf("%v, want a *DecodeError naming session_id", err)
			}
			if alloc > 1<<20 {
				t.Fatalf("decoding allocated %d bytes", alloc)
			}
		})
	}
}

// FuzzDecodeEvolvedWriter decodes arbitrary bytes as an init_payout written
// with a compatible evolution that adds every shape of optional field whose
// lengths the record's bytes must bound (the writer-only fields are
// skipped, not decoded): any input is refused with a *DecodeError or
// decoded, never hangs or panics.
func FuzzDecodeEvolvedWriter(f *testing.F) {
	var root map[string]any
	if err := json.Unmarshal([]byte(schemas.MustGet(KindInitPayout.SchemaName())), &root); err != nil {
		f.Fatal(err)
	}
	for i, h := range hostileFields {
		var fld map[string]any
		if err := json.Unmarshal([]byte(h.field), &fld); err != nil {
			f.Fatal(err)
		}
		fld["name"] = fmt.Sprintf("x%d", i)
		if branch, ok := fld["type"].([]any)[1].(map[string]any); ok {
			if rec, ok := branch["items"].(map[string]any); ok {
				rec["name"] = fmt.Sprintf("Empty%d", i) // one definition per name
			}
		}
		root["fields"] = append(root["fields"].([]any), fld)
	}
	text, _ := json.Marshal(root)
	writer, err := ParseSchema(string(text))
	if err != nil {
		f.Fatal(err)
	}
	reader, derr := resolvedReader(nil, KindInitPayout.SchemaName(), writer, FormatConfluent)
	if derr != nil {
		f.Fatal(derr)
	}
	body, _ := MarshalAvro(sampleCommands()[KindInitPayout])
	nulls := make([]byte, len(hostileFields))
	f.Add(append(bytes.Clone(body), nulls...))
	for i, h := range hostileFields {
		seed := append(bytes.Clone(body), nulls[:i]...)
		f.Add(append(append(seed, h.value...), nulls[i+1:]...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v InitPayout
		if err := unmarshal(FormatConfluent, writer, reader, data, &v); err != nil {
			checkDecodeError(t, err)
		}
	})
}
