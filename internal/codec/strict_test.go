package codec

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/twmb/avro"

	"github.com/paysession/paysession/internal/sensitive"
)

// wantStrictError fails unless err is a *DecodeError of format f naming
// field, with reason containing wantIn, and with a message that is valid
// UTF-8 (it becomes an Avro string of the result and a header).
func wantStrictError(t *testing.T, err error, f Format, field, wantIn string) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T), want *DecodeError", err, err)
	}
	if de.Format != f || de.Field != field {
		t.Errorf("format %q field %q, want %q %q (%v)", de.Format, de.Field, f, field, err)
	}
	if !strings.Contains(de.Reason, wantIn) {
		t.Errorf("reason %q does not contain %q", de.Reason, wantIn)
	}
	if !utf8.ValidString(err.Error()) || !utf8.ValidString(de.Field) {
		t.Errorf("error is not valid UTF-8: %q", err.Error())
	}
}

func TestStrictJSONRejects(t *testing.T) {
	tests := []struct {
		name      string
		kind      CommandKind
		value     string
		wantField string
		wantIn    string
	}{
		{"case-different member after the real one", KindCapture, `{"session_id":"ps_1","amount":100,"AMOUNT":999999}`, "AMOUNT", "unknown field"},
		{"case-different member alone", KindCapture, `{"Session_ID":"ps_1"}`, "Session_ID", `unknown field (member names are case-sensitive: did you mean "session_id"?)`},
		{"fuzz finding: case-different nested members", KindInitPayout, `{"Customer":{"referenCe":"0","emAils":[]}}`, "Customer", "unknown field"},
		{"case-different nested member", KindInitPayout, `{"customer":{"referenCe":"0"}}`, "customer.referenCe", "unknown field"},
		{"case-different deep member", KindInitPayout, `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"Number":"4111111111111111"}}}}`, "instrument.card.bank_card.Number", "unknown field"},
		{"unknown nested member names its path", KindInitPayout, `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"cvv":"1"}}}}`, "instrument.card.bank_card.cvv", "unknown field"},
		{"duplicate top-level member", KindCapture, `{"session_id":"ps_1","amount":100,"amount":999999}`, "amount", "duplicate member"},
		{"duplicate member spelled with an escape", KindCapture, `{"session_id":"ps_1","amount":1,"am\u006funt":2}`, "amount", "duplicate member"},
		{"duplicate nested member", KindInitPayout, `{"customer":{"reference":"a","reference":"b"}}`, "customer.reference", "duplicate member"},
		{"duplicate deep member", KindInitPayout, `{"instrument":{"type":"bank_account","bank_account":{"system_type":"ru","ru":{"bic":"1","bic":"2"}}}}`, "instrument.bank_account.ru.bic", "duplicate member"},
		{"duplicate object member", KindInitPayout, `{"customer":{"reference":"a"},"customer":{"reference":"b"}}`, "customer", "duplicate member"},
		{"duplicate member in an object inside a metadata array", KindRefund, `{"session_id":"ps_1","metadata":{"items":[{"sku":"a","sku":"b"}]}}`, "metadata", "duplicate member"},
		{"duplicate member in a wrongly typed value", KindCapture, `{"session_id":"ps_1","amount":{"x":1,"x":2}}`, "amount", "duplicate member"},
		{"duplicate member of a large metadata object", KindRefund, `{"session_id":"ps_1","metadata":{` + manyMembers(20) + `,"m17":0}}`, "metadata", "duplicate member"},
		{"escaped duplicate member of a large metadata object", KindRefund, `{"session_id":"ps_1","metadata":{` + manyMembers(20) + `,"m\u0031":0}}`, "metadata", "duplicate member"},
		{"escaped duplicate member of a small metadata object", KindRefund, `{"session_id":"ps_1","metadata":{"ab":1,"\u0061b":2}}`, "metadata", "duplicate member"},
		{"invalid UTF-8 in a string value", KindCapture, "{\"session_id\":\"ps_\xff\"}", "session_id", "not valid UTF-8"},
		{"truncated UTF-8 sequence in a string value", KindCapture, "{\"session_id\":\"ps_\xc3\"}", "session_id", "not valid UTF-8"},
		{"UTF-8 encoded surrogate", KindCapture, "{\"session_id\":\"ps_\xed\xa0\x80\"}", "session_id", "not valid UTF-8"},
		{"invalid UTF-8 in a nested string", KindInitPayout, "{\"customer\":{\"reference\":\"a\",\"emails\":[\"a@b.c\",\"x\xfe@b.c\"]}}", "customer.emails[1]", "not valid UTF-8"},
		{"invalid UTF-8 in a card field", KindInitPayout, "{\"instrument\":{\"type\":\"card\",\"card\":{\"type\":\"bank_card\",\"bank_card\":{\"number\":\"4111\xff\"}}}}", "instrument.card.bank_card.number", "not valid UTF-8"},
		{"invalid UTF-8 in a member name", KindCapture, "{\"session_id\":\"ps_1\",\"amo\xffunt\":1}", "*", "member name is not valid UTF-8"},
		{"invalid UTF-8 in a nested member name", KindInitPayout, "{\"customer\":{\"\xc0\":1}}", "customer.*", "member name is not valid UTF-8"},
		{"invalid UTF-8 inside metadata", KindRefund, "{\"session_id\":\"ps_1\",\"metadata\":{\"note\":\"\xff\"}}", "metadata", "not valid UTF-8"},
		{"lone high surrogate escape", KindCapture, `{"session_id":"ps_\ud800"}`, "session_id", "lone surrogate"},
		{"lone low surrogate escape", KindCapture, `{"session_id":"ps_\udc00x"}`, "session_id", "lone surrogate"},
		{"reversed surrogate pair", KindCapture, `{"session_id":"\ude00\ud83d"}`, "session_id", "lone surrogate"},
		{"lone surrogate in a member name", KindCapture, `{"session_id":"ps_1","\ud800":1}`, "*", "lone surrogate"},
		{"fuzz finding: lone surrogate between digits of a member name", KindCapture, `{"00000000\ud80000000000001A":1}`, "*", "lone surrogate"},
	}
	d, _ := NewDecoder(DecoderConfig{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := d.Decode(context.Background(), tt.kind.DefaultTopic(), tt.kind, []byte(tt.value))
			if err == nil {
				t.Fatalf("decoded %#v, want an error", cmd)
			}
			wantStrictError(t, err, FormatJSON, tt.wantField, tt.wantIn)
			if strings.Contains(err.Error(), "4111") && strings.Contains(tt.value, "4111111111111111") {
				t.Errorf("message leaks the card number: %q", err.Error())
			}
		})
	}
}

func TestStrictJSONAccepts(t *testing.T) {
	tests := []struct {
		name  string
		kind  CommandKind
		value string
		want  Command
	}{
		{"plain", KindCapture, `{"session_id":"ps_1","amount":100}`, &Capture{SessionID: "ps_1", Amount: ptr(int64(100))}},
		{"whitespace everywhere", KindCapture, " \r\n\t{ \"session_id\" : \"ps_1\" ,\n\"amount\" :\t100 } \n", &Capture{SessionID: "ps_1", Amount: ptr(int64(100))}},
		{"multi-byte UTF-8", KindCapture, `{"session_id":"ps_é€😀"}`, &Capture{SessionID: "ps_é€😀"}},
		{"escapes and a surrogate pair", KindCapture, `{"session_id":"ps_\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t"}`, &Capture{SessionID: "ps_é😀\"\\/\b\f\n\r\t"}},
		{"a literal replacement character", KindCapture, `{"session_id":"ps_` + "\uFFFD" + `"}`, &Capture{SessionID: "ps_\uFFFD"}},
		{"escaped member name", KindCapture, `{"session\u005fid":"ps_1"}`, &Capture{SessionID: "ps_1"}},
		{"null members", KindCapture, `{"session_id":"ps_1","amount":null,"currency":null}`, &Capture{SessionID: "ps_1"}},
		{"same member names in different objects", KindInitPayout, `{"instrument":{"type":"bank_account","bank_account":{"system_type":"ru","ru":{"full_name":"a"}}},"participants":{"sender":{"full_name":"b"},"recipient":{"full_name":"c"}}}`,
			&InitPayout{Instrument: Instrument{Type: "bank_account", BankAccount: &BankAccount{SystemType: "ru", RU: &RUAccount{FullName: "a"}}},
				Participants: &Participants{Sender: &Sender{FullName: ptr("b")}, Recipient: &Recipient{FullName: ptr("c")}}}},
		{"metadata with any member names, nested", KindRefund, `{"session_id":"ps_1","metadata":{"Order":1,"order":2,"items":[{"a":1},{"a":2}],"x":{"a":{"a":[]}}}}`,
			&Refund{SessionID: "ps_1", Metadata: ptr(Metadata(`{"Order":1,"order":2,"items":[{"a":1},{"a":2}],"x":{"a":{"a":[]}}}`))}},
		{"large metadata object", KindRefund, `{"session_id":"ps_1","metadata":{` + manyMembers(40) + `}}`, &Refund{SessionID: "ps_1", Metadata: ptr(Metadata(`{` + manyMembers(40) + `}`))}},
		{"metadata as a string", KindRefund, `{"session_id":"ps_1","metadata":"x"}`, &Refund{SessionID: "ps_1", Metadata: ptr(Metadata(`"x"`))}},
		{"card fields", KindInitPayment, `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","security_code":"123"}}},"customer":{"reference":"r","emails":["a@b.c","d@e.f"]}}`,
			&InitPayment{Instrument: Instrument{Type: "card", Card: &Card{Type: "bank_card", BankCard: &BankCard{Number: sensitive.PAN("4111111111111111"), SecurityCode: ptr(sensitive.SecurityCode("123"))}}},
				Customer: Customer{Reference: "r", Emails: []string{"a@b.c", "d@e.f"}}}},
	}
	d, _ := NewDecoder(DecoderConfig{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.Decode(context.Background(), tt.kind.DefaultTopic(), tt.kind, []byte(tt.value))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// TestJSONNamesAreSchemaFields checks the premise of strict JSON: the JSON
// member names of every command type, at every depth, are exactly the field
// names of its record in the command's schema in schemas/.
func TestJSONNamesAreSchemaFields(t *testing.T) {
	var check func(path string, typ reflect.Type, s *avro.SchemaNode)
	check = func(path string, typ reflect.Type, s *avro.SchemaNode) {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if s.Type == "union" {
			for i := range s.Branches {
				if s.Branches[i].Type != "null" {
					s = &s.Branches[i]
				}
			}
		}
		switch s.Type {
		case "record":
			if typ.Kind() != reflect.Struct || typ.NumField() != len(s.Fields) {
				t.Errorf("%s: Go type %s for record %s with %d fields", path, typ, s.Name, len(s.Fields))
				return
			}
			for i, f := range s.Fields {
				gf := typ.Field(i)
				jsonName, _, _ := strings.Cut(gf.Tag.Get("json"), ",")
				if jsonName != f.Name {
					t.Errorf("%s: Go field %s has JSON name %q, schema field %d is %q", path, gf.Name, jsonName, i, f.Name)
				}
				check(path+"."+f.Name, gf.Type, &f.Type)
			}
		case "array":
			if typ.Kind() != reflect.Slice {
				t.Errorf("%s: Go type %s for an array", path, typ)
				return
			}
			check(path+"[]", typ.Elem(), s.Items)
		}
	}
	for _, k := range Kinds() {
		s, err := Schema(k.SchemaName())
		if err != nil {
			t.Fatal(err)
		}
		check(string(k), reflect.TypeOf(k.New()), s.Root())
	}
}

// badAvroCommands are commands whose Avro encoding carries a string that a
// JSON command could not: invalid UTF-8, or metadata with duplicate members.
func badAvroCommands() []struct {
	name      string
	kind      CommandKind
	cmd       Command
	wantField string
	wantIn    string
} {
	return []struct {
		name      string
		kind      CommandKind
		cmd       Command
		wantField string
		wantIn    string
	}{
		{"invalid UTF-8 in a top-level string", KindCapture, &Capture{SessionID: "ps_\xff"}, "session_id", "not valid UTF-8"},
		{"invalid UTF-8 in an optional string", KindCapture, &Capture{SessionID: "ps_1", Currency: ptr("r\xc3")}, "currency", "not valid UTF-8"},
		{"invalid UTF-8 in an array element", KindInitPayout, &InitPayout{Instrument: Instrument{Type: "card"}, Amount: 1, Currency: "rub",
			Customer: &Customer{Reference: "r", Emails: []string{"a@b.c", "\xfe@b.c"}}}, "customer.emails[1]", "not valid UTF-8"},
		{"invalid UTF-8 in a card number", KindInitPayment, &InitPayment{Instrument: Instrument{Type: "card", Card: &Card{Type: "bank_card",
			BankCard: &BankCard{Number: sensitive.PAN("4111\xff")}}}}, "instrument.card.bank_card.number", "not valid UTF-8"},
		{"UTF-8 encoded surrogate in a nested string", KindFPSVerification, &FPSVerification{Phone: "7", BankID: "1",
			Recipient: Recipient{MiddleName: ptr("\xed\xa0\x80")}}, "recipient.middle_name", "not valid UTF-8"},
		{"invalid UTF-8 in metadata", KindRefund, &Refund{SessionID: "ps_1", Metadata: ptr(Metadata("{\"a\":\"\xff\"}"))}, "metadata", "not valid UTF-8"},
		{"duplicate member in metadata", KindRefund, &Refund{SessionID: "ps_1", Metadata: ptr(Metadata(`{"a":1,"a":2}`))}, "metadata", "duplicate member"},
		{"lone surrogate escape in metadata", KindRefund, &Refund{SessionID: "ps_1", Metadata: ptr(Metadata(`{"a":"\ud800"}`))}, "metadata", "lone surrogate"},
	}
}

func TestStrictSingleObjectRejects(t *testing.T) {
	d, _ := NewDecoder(DecoderConfig{})
	for _, tt := range badAvroCommands() {
		t.Run(tt.name, func(t *testing.T) {
			b, err := EncodeSingleObject(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			cmd, err := d.Decode(context.Background(), tt.kind.DefaultTopic(), tt.kind, b)
			if err == nil {
				t.Fatalf("decoded %#v, want an error", cmd)
			}
			wantStrictError(t, err, FormatSingleObject, tt.wantField, tt.wantIn)
		})
	}
}

func TestStrictConfluentRejects(t *testing.T) {
	_, cl := newFakeRegistry(t)
	ctx := context.Background()
	enc, _ := NewEncoder(EncoderConfig{Registry: cl})
	d, _ := NewDecoder(DecoderConfig{Registry: cl})
	for _, tt := range badAvroCommands() {
		t.Run(tt.name, func(t *testing.T) {
			b, err := enc.Encode(ctx, tt.kind.DefaultTopic(), tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			cmd, err := d.Decode(ctx, tt.kind.DefaultTopic(), tt.kind, b)
			if err == nil {
				t.Fatalf("decoded %#v, want an error", cmd)
			}
			wantStrictError(t, err, FormatConfluent, tt.wantField, tt.wantIn)
		})
	}
}

// TestStrictAvroAccepts checks that valid non-ASCII strings and metadata
// with repeated names in different objects still decode from Avro.
func TestStrictAvroAccepts(t *testing.T) {
	d, _ := NewDecoder(DecoderConfig{})
	for name, cmd := range map[string]Command{
		"multi-byte UTF-8":           &Capture{SessionID: "ps_é€😀", Currency: ptr("\uFFFD")},
		"metadata with nested names": &Refund{SessionID: "ps_1", Metadata: ptr(Metadata(`{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"\ud83d\ude00"}`))},
		"metadata that is not JSON":  &Refund{SessionID: "ps_1", Metadata: ptr(Metadata(`{`))}, // Validate reports it
		"Cyrillic name":              &FPSVerification{Phone: "7", BankID: "1", Recipient: Recipient{FirstName: ptr("Иван")}},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := EncodeSingleObject(cmd)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Decode(context.Background(), cmd.Kind().DefaultTopic(), cmd.Kind(), b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, cmd) {
				t.Fatalf("got %#v, want %#v", got, cmd)
			}
		})
	}
}

// manyMembers returns n distinct members "m0":0,"m1":1,...
func manyMembers(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"m%d":%d`, i, i)
	}
	return strings.Join(parts, ",")
}

// TestStrictJSONTooDeep checks that nesting beyond encoding/json's limit
// is an error, not a stack to grow without bound.
func TestStrictJSONTooDeep(t *testing.T) {
	d, _ := NewDecoder(DecoderConfig{})
	value := `{"session_id":"ps_1","metadata":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	_, err := d.Decode(context.Background(), KindRefund.DefaultTopic(), KindRefund, []byte(value))
	var de *DecodeError
	if !errors.As(err, &de) || de.Format != FormatJSON {
		t.Fatalf("got %v, want a JSON *DecodeError", err)
	}
}
