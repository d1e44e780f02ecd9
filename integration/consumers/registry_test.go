package consumers

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/twmb/avro"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/schemas"
)

// TestRegistryAcceptsSchemaHistory registers every released version of every schema and then the
// current one under a FULL_TRANSITIVE subject of a real registry: the registry's own
// compatibility check (Avro's Java implementation) must agree with the codec's.
func TestRegistryAcceptsSchemaHistory(t *testing.T) {
	ctx := context.Background()
	cl := harness.RegistryClient(t)
	prefix := "history-" + randomID() + "-"
	for _, n := range schemas.All() {
		t.Run(string(n), func(t *testing.T) {
			subject := prefix + string(n) + "-value"
			setFullTransitive(t, cl, subject)
			versions, err := schemas.History(n)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range versions {
				if _, err := cl.CreateSchema(ctx, subject, sr.Schema{Schema: v.Text, Type: sr.TypeAvro}); err != nil {
					t.Fatalf("register v%d: %v", v.Version, err)
				}
			}
			cur := sr.Schema{Schema: schemas.MustGet(n), Type: sr.TypeAvro}
			res, err := cl.CheckCompatibility(ctx, subject, -1, cur)
			if err != nil || !res.Is {
				t.Fatalf("registry finds current %s incompatible with the released one: %v %v", n, res.Messages, err)
			}
			if _, err := cl.CreateSchema(ctx, subject, cur); err != nil {
				t.Fatalf("register current: %v", err)
			}
		})
	}
}

// TestRegistryRejectsIncompatibleChange makes deliberately incompatible edits and checks that the
// registry refuses them and that the codec's check names the field.
func TestRegistryRejectsIncompatibleChange(t *testing.T) {
	ctx := context.Background()
	cl := harness.RegistryClient(t)
	tests := []struct {
		name   string
		schema schemas.Name
		edit   func(root map[string]any)
		field  string
	}{
		{"type of session_id", codec.KindCapture.SchemaName(), func(r map[string]any) { fieldOf(r, "session_id")["type"] = "long" }, "session_id"},
		{"new field without default", schemas.CommandResult, func(r map[string]any) {
			r["fields"] = append(r["fields"].([]any), map[string]any{"name": "region", "type": "string"})
		}, "region"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			subject := "incompat-" + randomID() + "-value"
			setFullTransitive(t, cl, subject)
			if _, err := cl.CreateSchema(ctx, subject, sr.Schema{Schema: schemas.MustGet(tt.schema)}); err != nil {
				t.Fatal(err)
			}
			changed := edited(t, tt.schema, tt.edit)
			res, err := cl.CheckCompatibility(ctx, subject, -1, sr.Schema{Schema: changed})
			if err != nil || res.Is {
				t.Fatalf("registry calls the change compatible: %+v %v", res, err)
			}
			var re *sr.ResponseError
			if _, err := cl.CreateSchema(ctx, subject, sr.Schema{Schema: changed}); !errors.As(err, &re) || re.StatusCode != 409 {
				t.Fatalf("registering the change: %v, want HTTP 409", err)
			}
			newS, _ := codec.ParseSchema(changed)
			oldS := codec.MustSchema(tt.schema)
			err = errors.Join(codec.CheckCompatible(newS, oldS), codec.CheckCompatible(oldS, newS))
			var ce *codec.CompatibilityError
			if !errors.As(err, &ce) || ce.Field != tt.field {
				t.Fatalf("codec check: %v, want a *CompatibilityError naming %s", err, tt.field)
			}
			t.Logf("registry: %s; codec: %v", re.Message, err)
		})
	}
}

// TestCodecThroughApicurio encodes every command in the Confluent wire format with schemas
// registered in the real registry and decodes it back through the registry, including a record
// written by a newer producer whose schema has an extra field.
func TestCodecThroughApicurio(t *testing.T) {
	ctx := context.Background()
	cl := harness.RegistryClient(t)
	topics := map[string]schemas.Name{}
	prefix := "roundtrip-" + randomID() + "."
	for _, k := range codec.Kinds() {
		topics[prefix+k.DefaultTopic()] = k.SchemaName()
	}
	enc, err := codec.NewEncoder(codec.EncoderConfig{Registry: cl, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	dec, _ := codec.NewDecoder(codec.DecoderConfig{Registry: cl})
	payout := &codec.InitPayout{Amount: 10000, Currency: "rub", Instrument: codec.Instrument{Type: codec.InstrumentCard,
		Card: &codec.Card{Type: codec.CardBank, BankCard: &codec.BankCard{Number: sensitive.PAN("4111111111111111"), ExpirationMonth: "12", ExpirationYear: "29"}}}}
	for _, cmd := range []codec.Command{payout, &codec.Capture{SessionID: "ps_5", Amount: ptr(int64(5)), Currency: ptr("rub")}, &codec.Confirm{SessionID: "ps_6"}} {
		b, err := enc.Encode(ctx, prefix+cmd.Kind().DefaultTopic(), cmd)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dec.Decode(ctx, prefix+cmd.Kind().DefaultTopic(), cmd.Kind(), b)
		if err != nil {
			t.Fatalf("%s: %v", cmd.Kind(), err)
		}
		if !reflect.DeepEqual(got, cmd) {
			t.Fatalf("%s: got %#v, want %#v", cmd.Kind(), got, cmd)
		}
	}

	// A newer producer adds an optional field; FULL_TRANSITIVE accepts it and we still decode.
	subject := codec.Subject(prefix + codec.KindCapture.DefaultTopic())
	setFullTransitive(t, cl, subject)
	newer := edited(t, codec.KindCapture.SchemaName(), func(r map[string]any) {
		r["fields"] = append(r["fields"].([]any), map[string]any{"name": "reason", "type": "string", "default": ""})
	})
	ss, err := cl.CreateSchema(ctx, subject, sr.Schema{Schema: newer})
	if err != nil {
		t.Fatalf("register newer capture: %v", err)
	}
	newerSchema, _ := codec.ParseSchema(newer)
	type captureV2 struct { // a producer's own type: every field of its schema (twmb/avro encodes no partial struct)
		SessionID   string  `avro:"session_id"`
		Amount      *int64  `avro:"amount"`
		Currency    *string `avro:"currency"`
		Project     *string `avro:"project"`
		Submerchant *string `avro:"submerchant"`
		Reason      string  `avro:"reason"`
	}
	body, err := marshal(newerSchema, captureV2{SessionID: "ps_9", Reason: "customer asked"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dec.Decode(ctx, prefix+codec.KindCapture.DefaultTopic(), codec.KindCapture, append([]byte{0, byte(ss.ID >> 24), byte(ss.ID >> 16), byte(ss.ID >> 8), byte(ss.ID)}, body...))
	if err != nil {
		t.Fatal(err)
	}
	if want := (&codec.Capture{SessionID: "ps_9"}); !reflect.DeepEqual(got, want) {
		t.Fatalf("newer writer: got %#v", got)
	}
}

func setFullTransitive(t *testing.T, cl *sr.Client, subject string) {
	t.Helper()
	for _, r := range cl.SetCompatibility(context.Background(), sr.SetCompatibility{Level: sr.CompatFullTransitive}, subject) {
		if r.Err != nil {
			t.Fatalf("set FULL_TRANSITIVE on %s: %v", subject, r.Err)
		}
	}
}

// edited returns the JSON of schema n changed by fn.
func edited(t *testing.T, n schemas.Name, fn func(map[string]any)) string {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal([]byte(schemas.MustGet(n)), &root); err != nil {
		t.Fatal(err)
	}
	fn(root)
	b, _ := json.Marshal(root)
	return string(b)
}

func fieldOf(rec map[string]any, name string) map[string]any {
	for _, f := range rec["fields"].([]any) {
		if f.(map[string]any)["name"] == name {
			return f.(map[string]any)
		}
	}
	panic("no field " + name)
}

// marshal encodes v with schema s (plain Avro binary) the way another producer would.
func marshal(s *avro.Schema, v any) ([]byte, error) { return s.Encode(v) }
