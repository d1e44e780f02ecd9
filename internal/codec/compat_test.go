package codec

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/twmb/avro"

	"github.com/paysession/paysession/schemas"
)

// TestSchemasCompatibleWithHistory enforces the compatibility policy: every
// current schema is FULL_TRANSITIVE compatible with every released version —
// new readers read old data (backward) and old readers read new data
// (forward).
func TestSchemasCompatibleWithHistory(t *testing.T) {
	for _, n := range schemas.All() {
		t.Run(string(n), func(t *testing.T) {
			versions, err := schemas.History(n)
			if err != nil || len(versions) == 0 {
				t.Fatalf("no released version of %s under schemas/history/%s: %v", n, n, err)
			}
			cur := MustSchema(n)
			for _, v := range versions {
				old, err := ParseSchema(v.Text)
				if err != nil {
					t.Fatalf("v%d: %v", v.Version, err)
				}
				if err := CheckCompatible(cur, old); err != nil {
					t.Errorf("backward: current %s cannot read v%d data: %v", n, v.Version, err)
				}
				if err := CheckCompatible(old, cur); err != nil {
					t.Errorf("forward: v%d consumers of %s cannot read current data: %v", v.Version, n, err)
				}
			}
		})
	}
}

func sampleRecords() []Record {
	var out []Record
	for _, k := range Kinds() {
		out = append(out, sampleCommands()[k])
	}
	return out
}

// TestOldConsumerReadsNewRecords writes records with the current schemas and
// reads them as a consumer holding each released schema would.
func TestOldConsumerReadsNewRecords(t *testing.T) {
	for _, rec := range sampleRecords() {
		n := rec.SchemaName()
		data, err := MarshalAvro(rec)
		if err != nil {
			t.Fatal(err)
		}
		versions, _ := schemas.History(n)
		for _, v := range versions {
			old, _ := ParseSchema(v.Text)
			resolved, err := avro.Resolve(MustSchema(n), old)
			if err != nil {
				t.Fatalf("%s v%d: %v", n, v.Version, err)
			}
			var m map[string]any
			if _, err := resolved.Decode(data, &m); err != nil {
				t.Fatalf("%s v%d consumer: %v", n, v.Version, err)
			}
			if len(m) == 0 {
				t.Fatalf("%s v%d consumer read nothing", n, v.Version)
			}
		}
	}
}

// mutate returns a copy of schema n's JSON changed by fn.
func mutate(t *testing.T, n schemas.Name, fn func(root map[string]any)) *avro.Schema {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal([]byte(schemas.MustGet(n)), &root); err != nil {
		t.Fatal(err)
	}
	fn(root)
	b, _ := json.Marshal(root)
	s, err := ParseSchema(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fields(rec map[string]any) []any { return rec["fields"].([]any) }

func field(rec map[string]any, name string) map[string]any {
	for _, f := range fields(rec) {
		if f.(map[string]any)["name"] == name {
			return f.(map[string]any)
		}
	}
	panic("no field " + name)
}

// nullableRecord returns the record inside a ["null", record] field.
func nullableRecord(f map[string]any) map[string]any { return f["type"].([]any)[1].(map[string]any) }

// TestIncompatibleChangeNamesField proves the check bites: deliberately
// incompatible edits of in-memory copies fail, naming the field.
func TestIncompatibleChangeNamesField(t *testing.T) {
	tests := []struct {
		name      string
		schema    schemas.Name
		edit      func(root map[string]any)
		backward  bool // check new-reads-old (else old-reads-new)
		wantField string
	}{
		{"type change", KindCapture.SchemaName(), func(r map[string]any) { field(r, "session_id")["type"] = "long" }, true, "session_id"},
		{"nested required field added without default", KindInitPayout.SchemaName(), func(r map[string]any) {
			card := nullableRecord(field(field(r, "instrument")["type"].(map[string]any), "card"))
			bank := nullableRecord(field(card, "bank_card"))
			bank["fields"] = append(fields(bank), map[string]any{"name": "network", "type": "string"})
		}, true, "instrument.card.bank_card.network"},
		{"required field removed", schemas.CommandResult, func(r map[string]any) {
			var keep []any
			for _, f := range fields(r) {
				if f.(map[string]any)["name"] != "source_offset" {
					keep = append(keep, f)
				}
			}
			r["fields"] = keep
		}, false, "source_offset"},
		{"enum symbol added", schemas.CommandResult, func(r map[string]any) {
			st := field(r, "status")["type"].(map[string]any)
			st["symbols"] = append(st["symbols"].([]any), "postponed")
		}, false, "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			released := MustSchema(tt.schema)
			changed := mutate(t, tt.schema, tt.edit)
			reader, writer := changed, released
			if !tt.backward {
				reader, writer = released, changed
			}
			err := CheckCompatible(reader, writer)
			var ce *CompatibilityError
			if !errors.As(err, &ce) {
				t.Fatalf("incompatible change accepted: %v", err)
			}
			if ce.Field != tt.wantField {
				t.Fatalf("error names field %q, want %q: %v", ce.Field, tt.wantField, err)
			}
			t.Logf("rejected as expected: %v", err)
		})
	}
}
