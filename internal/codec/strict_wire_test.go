package codec

import (
	"bytes"
	"context"
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
