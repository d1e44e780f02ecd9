package codec

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/paysession/paysession/schemas"
)

func newFakeRegistry(t *testing.T) (*srfake.Registry, *sr.Client) {
	t.Helper()
	reg := srfake.New()
	t.Cleanup(reg.Close)
	cl, err := sr.NewClient(sr.URLs(reg.URL()))
	if err != nil {
		t.Fatal(err)
	}
	return reg, cl
}

func TestConfluentRoundTrip(t *testing.T) {
	_, cl := newFakeRegistry(t)
	ctx := context.Background()
	enc, err := NewEncoder(EncoderConfig{Registry: cl, Topics: map[string]schemas.Name{"payments.command-results": schemas.CommandResult}})
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	dec, _ := NewDecoder(DecoderConfig{Registry: cl})
	for kind, cmd := range sampleCommands() {
		b, err := enc.Encode(ctx, kind.DefaultTopic(), cmd)
		if err != nil {
			t.Fatal(err)
		}
		if DetectFormat(b) != FormatConfluent {
			t.Fatalf("%s: format %s", kind, DetectFormat(b))
		}
		got, err := dec.Decode(ctx, kind.DefaultTopic(), kind, b)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if !reflect.DeepEqual(got, cmd) {
			t.Fatalf("%s: round trip:\n got %#v\nwant %#v", kind, got, cmd)
		}
	}
}

// captureV2 is a capture written by a newer producer with an added field.
type captureV2 struct {
	SessionID string  `avro:"session_id"`
	Amount    *int64  `avro:"amount"`
	Currency  *string `avro:"currency"`
	Reason    string  `avro:"reason"`
}

const captureV2Schema = `{"type":"record","name":"CaptureCommand","namespace":"io.paysession.v1","fields":[
 {"name":"session_id","type":"string"},
 {"name":"amount","type":["null","long"],"default":null},
 {"name":"currency","type":["null","string"],"default":null},
 {"name":"reason","type":"string","default":""}]}`

// captureOld is a capture written by an older producer without the amount.
type captureOld struct {
	SessionID string `avro:"session_id"`
}

const captureOldSchema = `{"type":"record","name":"CaptureCommand","namespace":"io.paysession.v1","fields":[
 {"name":"session_id","type":"string"}]}`

const captureBadSchema = `{"type":"record","name":"CaptureCommand","namespace":"io.paysession.v1","fields":[
 {"name":"session_id","type":"long"}]}`

func TestConfluentWriterSchemaResolution(t *testing.T) {
	reg, cl := newFakeRegistry(t)
	ctx := context.Background()
	dec, _ := NewDecoder(DecoderConfig{Registry: cl})
	register := func(subject, text string) int {
		id, _, err := reg.RegisterSchema(subject, sr.Schema{Schema: text})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	write := func(id int, schemaText string, v any) []byte {
		s, err := ParseSchema(schemaText)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		out := []byte{0, 0, 0, 0, byte(id)}
		return append(out, b...)
	}
	amount, cur := int64(5), "rub"

	got, err := dec.Decode(ctx, "a", KindCapture, write(register("a-value", captureV2Schema), captureV2Schema,
		captureV2{SessionID: "ps_1", Amount: &amount, Currency: &cur, Reason: "late"}))
	if err != nil {
		t.Fatalf("newer writer: %v", err)
	}
	if want := (&Capture{SessionID: "ps_1", Amount: &amount, Currency: &cur}); !reflect.DeepEqual(got, want) {
		t.Fatalf("newer writer: got %#v", got)
	}

	got, err = dec.Decode(ctx, "b", KindCapture, write(register("b-value", captureOldSchema), captureOldSchema, captureOld{SessionID: "ps_2"}))
	if err != nil {
		t.Fatalf("older writer: %v", err)
	}
	if want := (&Capture{SessionID: "ps_2"}); !reflect.DeepEqual(got, want) {
		t.Fatalf("older writer: got %#v", got)
	}

	_, err = dec.Decode(ctx, "c", KindCapture, write(register("c-value", captureBadSchema), captureBadSchema, struct {
		SessionID int64 `avro:"session_id"`
	}{7}))
	var de *DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "session_id") {
		t.Fatalf("incompatible writer: %v, want *DecodeError naming session_id", err)
	}
}

func TestConfluentErrors(t *testing.T) {
	reg, cl := newFakeRegistry(t)
	ctx := context.Background()
	value := []byte{0, 0, 0, 0x30, 0x39, 2, 'x'}

	dec, _ := NewDecoder(DecoderConfig{Registry: cl})
	var de *DecodeError
	if _, err := dec.Decode(ctx, KindConfirm.DefaultTopic(), KindConfirm, value); !errors.As(err, &de) || !strings.Contains(err.Error(), "12345 not found") {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := dec.Decode(ctx, KindConfirm.DefaultTopic(), KindConfirm, []byte{0, 1}); !errors.As(err, &de) {
		t.Errorf("short: %v", err)
	}
	noReg, _ := NewDecoder(DecoderConfig{})
	if _, err := noReg.Decode(ctx, KindConfirm.DefaultTopic(), KindConfirm, value); !errors.As(err, &de) || !strings.Contains(err.Error(), "no schema registry") {
		t.Errorf("no registry: %v", err)
	}
	reg.Close()
	var re *RegistryError
	if _, err := dec.Decode(ctx, KindConfirm.DefaultTopic(), KindConfirm, []byte{0, 0, 0, 0, 9, 2, 'x'}); !errors.As(err, &re) {
		t.Errorf("registry down: %v (%T), want *RegistryError", err, err)
	}
	enc, _ := NewEncoder(EncoderConfig{Registry: cl})
	if _, err := enc.Encode(ctx, "t", &Confirm{SessionID: "ps_1"}); !errors.As(err, &re) {
		t.Errorf("encode with registry down: %v, want *RegistryError", err)
	}
}

func TestSingleObjectErrors(t *testing.T) {
	ctx := context.Background()
	dec, _ := NewDecoder(DecoderConfig{})
	good, _ := EncodeSingleObject(&Confirm{SessionID: "ps_1"})
	tests := []struct {
		name   string
		kind   CommandKind
		value  []byte
		wantIn string
	}{
		{"short header", KindConfirm, good[:6], "shorter"},
		{"wrong kind", KindCancel, good, "unknown schema fingerprint"},
		{"truncated body", KindConfirm, good[:11], "malformed Avro"},
		{"unknown format", KindConfirm, []byte("x"), "first byte 0x78"},
		{"empty", KindConfirm, nil, "empty value"},
		{"unknown kind", CommandKind("nope"), good, "unknown command kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dec.Decode(ctx, tt.kind.DefaultTopic(), tt.kind, tt.value)
			var de *DecodeError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.wantIn) {
				t.Fatalf("got %v, want *DecodeError containing %q", err, tt.wantIn)
			}
		})
	}
}

func TestEncoderConfigValidate(t *testing.T) {
	_, err := NewEncoder(EncoderConfig{Topics: map[string]schemas.Name{"": "nope"}})
	if err == nil || !strings.Contains(err.Error(), "Topics[]") || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("got %v", err)
	}
}

func TestDecodeRecordOutcomes(t *testing.T) {
	_, cl := newFakeRegistry(t)
	ctx := context.Background()
	regEnc, _ := NewEncoder(EncoderConfig{Registry: cl})
	soeEnc, _ := NewEncoder(EncoderConfig{})
	dec, _ := NewDecoder(DecoderConfig{Registry: cl})
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	want := &DeadLetter{OriginalTopic: "t", OriginalKey: []byte("k"), OriginalValue: []byte("{}"), OriginalHeaders: []Header{}, Error: "bad", FailedAt: now}
	for name, enc := range map[string]*Encoder{"confluent": regEnc, "single-object": soeEnc} {
		b, err := enc.Encode(ctx, "payments.dead-letter", want)
		if err != nil {
			t.Fatal(err)
		}
		var got DeadLetter
		if err := dec.DecodeRecord(ctx, b, &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(&got, want) {
			t.Fatalf("%s: got %#v", name, got)
		}
		var wrong CommandResult
		var de *DecodeError
		if err := dec.DecodeRecord(ctx, b, &wrong); !errors.As(err, &de) {
			t.Fatalf("%s into the wrong type: %v", name, err)
		}
	}
}

func TestAvroErrorsNameTheField(t *testing.T) {
	b, _ := EncodeSingleObject(sampleCommands()[KindInitPayout])
	dec, _ := NewDecoder(DecoderConfig{})
	_, err := dec.Decode(context.Background(), KindInitPayout.DefaultTopic(), KindInitPayout, b[:30])
	var de *DecodeError
	if !errors.As(err, &de) || !strings.HasPrefix(de.Field, "instrument.bank_account.ru.") {
		t.Fatalf("truncated record: %v (field %q), want a field under instrument.bank_account.ru", err, de.Field)
	}
	if strings.Contains(err.Error(), "BankAccount") {
		t.Fatalf("message uses Go names: %v", err)
	}
}

func TestConfluentConcurrentFirstFetch(t *testing.T) {
	_, cl := newFakeRegistry(t)
	ctx := context.Background()
	enc, _ := NewEncoder(EncoderConfig{Registry: cl})
	b, err := enc.Encode(ctx, "payments.commands.confirm", &Confirm{SessionID: "ps_1"})
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := NewDecoder(DecoderConfig{Registry: cl})
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			_, err := dec.Decode(ctx, KindConfirm.DefaultTopic(), KindConfirm, b)
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
