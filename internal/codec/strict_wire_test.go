package codec

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// isFastByte returns the single-object init-payout sample and the offset of
// its is_fast boolean.
func isFastByte(t *testing.T) ([]byte, int) {
	t.Helper()
	cmd := sampleCommands()[KindInitPayout].(*InitPayout)
	on, err := EncodeSingleObject(cmd)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Instrument.BankAccount.RU.IsFast = false
	off, _ := EncodeSingleObject(cmd)
	for i := range on {
		if on[i] != off[i] {
			if on[i] != 1 || off[i] != 0 {
				t.Fatalf("byte %d: %x vs %x", i, on[i], off[i])
			}
			return on, i
		}
	}
	t.Fatal("is_fast not found")
	return nil, 0
}

// TestStrictAvroBooleans: a boolean byte other than 0 or 1 is refused,
// naming the field, as it always was; the Avro library alone reads it as
// false.
func TestStrictAvroBooleans(t *testing.T) {
	value, i := isFastByte(t)
	d, _ := NewDecoder(DecoderConfig{})
	for _, b := range []byte{0x02, 0x7f, 0x80, 0xff} {
		v := bytes.Clone(value)
		v[i] = b
		cmd, err := d.Decode(context.Background(), "", KindInitPayout, v)
		if err == nil {
			t.Fatalf("byte 0x%02x: decoded is_fast=%v, want an error", b, cmd.(*InitPayout).Instrument.BankAccount.RU.IsFast)
		}
		wantStrictError(t, err, FormatSingleObject, "instrument.bank_account.ru.is_fast", "invalid boolean")
		if out, p := ProtectValue(v); p != ValueWithheld || len(out) != 0 {
			t.Fatalf("byte 0x%02x: dead letter value %s, want withheld", b, p)
		}
	}
	if _, err := d.Decode(context.Background(), "", KindInitPayout, value); err != nil {
		t.Fatal(err)
	}
}

// TestBooleanWalkFollowsReferences: writer schemas name their types once
// and refer to them after, by short name in their namespace or by full
// name, and may be recursive; the boolean check finds every boolean
// through them and accepts every valid record.
func TestBooleanWalkFollowsReferences(t *testing.T) {
	writer, err := ParseSchema(`{"type":"record","name":"R","namespace":"a.b","fields":[
	 {"name":"x","type":{"type":"record","name":"In","fields":[{"name":"f","type":"boolean"}]}},
	 {"name":"y","type":"In"},
	 {"name":"z","type":["null","a.b.In"]},
	 {"name":"w","type":{"type":"record","name":"Other","namespace":"c","fields":[{"name":"q","type":"a.b.In"}]}},
	 {"name":"list","type":{"type":"record","name":"Node","fields":[{"name":"b","type":"boolean"},{"name":"next","type":["null","Node"]}]}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"f": true}
	value := map[string]any{"x": in, "y": in, "z": in, "w": map[string]any{"q": in},
		"list": map[string]any{"b": true, "next": map[string]any{"b": true, "next": nil}}}
	data, err := writer.Encode(value)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkBooleans(FormatConfluent, writer, data); err != nil {
		t.Fatalf("valid record: %v", err)
	}
	// Every boolean byte is 0x01 here; each one replaced by 0x02 is named.
	want := []string{"x.f", "y.f", "z.f", "w.q.f", "list.b", "list.next.b"}
	var got []string
	for i := range data {
		if data[i] != 1 {
			continue
		}
		bad := bytes.Clone(data)
		bad[i] = 2
		var de *DecodeError
		if err := checkBooleans(FormatConfluent, writer, bad); errors.As(err, &de) {
			got = append(got, de.Field)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("booleans found at %v, want %v", got, want)
	}
}
