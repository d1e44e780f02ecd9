package reconcile

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

func TestCodecStateDecoder(t *testing.T) {
	want := stateOf(session("ps_78", "in_progress", "confirm", t0.Add(time.Second), "payout", 99), t0)
	soe, err := codec.EncodeSingleObject(want)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(want)
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	d := CodecStateDecoder{Decoder: dec}
	for name, v := range map[string][]byte{"single object": soe, "json": js} {
		got, err := d.DecodeSessionState(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Session.ID != "ps_78" || *got.Session.Operations[0].Amount != 99 || !got.Session.UpdatedAt.Equal(*want.Session.UpdatedAt) {
			t.Fatalf("%s: decoded %+v", name, got)
		}
	}
	for name, v := range map[string][]byte{"empty": nil, "garbage": {0x7f, 1, 2},
		"unknown fingerprint": append([]byte{0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8}, soe[10:]...)} {
		if _, err := d.DecodeSessionState(v); err == nil {
			t.Errorf("%s: decoded; want an error", name)
		}
	}
}
