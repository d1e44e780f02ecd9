package codec

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"testing"
)

var digitRun = regexp.MustCompile(`\d{12,}`)

// checkDecodeError fails when err is neither a *DecodeError nor free of
// long digit runs (possible card numbers).
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T), want *DecodeError", err, err)
	}
	if digitRun.MatchString(err.Error()) {
		t.Fatalf("error message carries a long digit run: %q", err.Error())
	}
}

func FuzzDecodeCommandJSON(f *testing.F) {
	for i, k := range Kinds() {
		b, _ := json.Marshal(sampleCommands()[k])
		f.Add(uint8(i), b)
	}
	f.Add(uint8(0), []byte(`{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","x":1}}}}`))
	dec, _ := NewDecoder(DecoderConfig{})
	f.Fuzz(func(t *testing.T, k uint8, value []byte) {
		kind := Kinds()[int(k)%len(Kinds())]
		if DetectFormat(value) != FormatJSON {
			return
		}
		cmd, err := dec.Decode(context.Background(), kind, value)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		_ = cmd.Validate()
		again, err := json.Marshal(cmd)
		if err != nil {
			return // e.g. metadata that is not one JSON document cannot come from JSON; nothing to compare
		}
		cmd2, err := dec.Decode(context.Background(), kind, again)
		if err != nil {
			t.Fatalf("re-decoding our own JSON: %v", err)
		}
		if !reflect.DeepEqual(cmd, cmd2) {
			t.Fatalf("JSON round trip changed the command:\n%#v\n%#v", cmd, cmd2)
		}
	})
}

func FuzzDecodeCommandAvro(f *testing.F) {
	for i, k := range Kinds() {
		b, _ := EncodeSingleObject(sampleCommands()[k])
		f.Add(uint8(i), b[10:])
	}
	dec, _ := NewDecoder(DecoderConfig{})
	f.Fuzz(func(t *testing.T, k uint8, body []byte) {
		kind := Kinds()[int(k)%len(Kinds())]
		hdr, _ := EncodeSingleObject(kind.New()) // header of the kind's schema
		value := append(hdr[:10:10], body...)
		cmd, err := dec.Decode(context.Background(), kind, value)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		_ = cmd.Validate()
		again, err := EncodeSingleObject(cmd)
		if err != nil {
			t.Fatalf("re-encoding a decoded command: %v", err)
		}
		cmd2, err := dec.Decode(context.Background(), kind, again)
		if err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		if !reflect.DeepEqual(cmd, cmd2) {
			t.Fatalf("Avro round trip changed the command:\n%#v\n%#v", cmd, cmd2)
		}
	})
}
