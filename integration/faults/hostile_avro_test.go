package faults_test

import (
	"context"
	wire "encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/schemas"
)

// Avro records of scenario 11, written in the Confluent wire format
// against writer schemas the test registers: status_refresh commands whose
// writer schema is the command's schema with one more optional field.

// arrayOfNullsField is the field of the crafted writer schema: a compatible
// evolution (optional, default null) whose array items take no bytes, so a
// block count costs its decoder a loop turn per item and nothing to read.
const arrayOfNullsField = `{"name":"hostile_nulls","type":["null",{"type":"array","items":"null"}],"default":null}`

// foreignField is the field of a writer schema registered under another
// subject only.
const foreignField = `{"name":"hostile_note","type":["null","string"],"default":null}`

// craftedBlockCount is the array block count of the crafted record: 2^62
// items of null, 0 bytes each.
const craftedBlockCount = 1 << 62

// evolvedSchema returns the schema of kind with field appended.
func evolvedSchema(t testing.TB, kind codec.CommandKind, field string) string {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(schemas.MustGet(kind.SchemaName())), &s); err != nil {
		t.Fatalf("schema of %s: %v", kind, err)
	}
	var f any
	if err := json.Unmarshal([]byte(field), &f); err != nil {
		t.Fatal(err)
	}
	fields, _ := s["fields"].([]any)
	s["fields"] = append(fields, f)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// registerSchema registers an Avro schema under subject and returns its id.
func registerSchema(t testing.TB, reg *sr.Client, subject, text string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := reg.CreateSchema(ctx, subject, sr.Schema{Schema: text, Type: sr.TypeAvro})
	if err != nil {
		t.Fatalf("register a schema under %s: %v", subject, err)
	}
	return s.ID
}

// statusRefreshAvro returns a status_refresh command of session in the
// Confluent wire format under writer schema id: the command schema's
// fields (session_id, then null for every optional field) followed by
// tail, the binary of the writer schema's extra field.
func statusRefreshAvro(t testing.TB, id int, session string, tail []byte) string {
	t.Helper()
	var s struct {
		Fields []struct {
			Name string          `json:"name"`
			Type json.RawMessage `json:"type"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(schemas.MustGet(codec.KindStatusRefresh.SchemaName())), &s); err != nil {
		t.Fatal(err)
	}
	b := []byte{0}
	b = wire.BigEndian.AppendUint32(b, uint32(id))
	for _, f := range s.Fields {
		var union []any
		switch {
		case f.Name == "session_id":
			b = wire.AppendVarint(b, int64(len(session)))
			b = append(b, session...)
		case json.Unmarshal(f.Type, &union) == nil && len(union) > 0 && union[0] == "null":
			b = wire.AppendVarint(b, 0) // the null branch
		default:
			t.Fatalf("status_refresh field %s of type %s: the test writes only session_id and optional fields", f.Name, f.Type)
		}
	}
	return string(append(b, tail...))
}

// craftedTail is the binary of arrayOfNullsField holding one block of
// craftedBlockCount nulls: the union's array branch, then the count.
func craftedTail() []byte {
	b := wire.AppendVarint(nil, 1)
	return wire.AppendVarint(b, craftedBlockCount)
}

// nullTail is the binary of an optional field left null.
func nullTail() []byte { return wire.AppendVarint(nil, 0) }
