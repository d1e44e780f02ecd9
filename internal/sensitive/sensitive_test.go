package sensitive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const testPAN = "4111111111111111"

func TestPANNeverPrintsInFull(t *testing.T) {
	p := PAN(testPAN)
	s := SecurityCode("123")
	type holder struct {
		P PAN
		S SecurityCode
	}
	outs := map[string]string{
		"%s":  fmt.Sprintf("%s", p),
		"%v":  fmt.Sprintf("%v", p),
		"%q":  fmt.Sprintf("%q", p),
		"%x":  fmt.Sprintf("%x", p),
		"%#v": fmt.Sprintf("%#v", holder{p, s}),
		"%+v": fmt.Sprintf("%+v", holder{p, s}),
		"err": fmt.Errorf("bad card %v cvc %v", p, s).Error(),
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "pan", p, "cvc", s)
	outs["slog"] = buf.String()
	for name, out := range outs {
		if strings.Contains(out, testPAN) || strings.Contains(out, "123\"") && name != "%x" {
			t.Errorf("%s leaks: %s", name, out)
		}
	}
	if got := p.Masked(); got != "411111******1111" {
		t.Errorf("Masked = %q", got)
	}
}

func TestWireJSONCarriesValue(t *testing.T) {
	b, err := json.Marshal(struct {
		N PAN          `json:"number"`
		C SecurityCode `json:"security_code"`
	}{PAN(testPAN), SecurityCode("123")})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"number":"4111111111111111","security_code":"123"}` {
		t.Fatalf("wire JSON = %s", b)
	}
}

func TestLuhn(t *testing.T) {
	for pan, want := range map[PAN]bool{
		"4111111111111111": true,
		"4111111111111112": false,
		"5555555555554444": true,
		"41111111":         false,
		"411111111111111a": false,
	} {
		if got := pan.Luhn(); got != want {
			t.Errorf("Luhn(%s) = %v", pan.Masked(), got)
		}
	}
}

func TestBinLast4Short(t *testing.T) {
	if PAN("1234").BIN() != "" || PAN("1234").Last4() != "" || PAN("1234").Masked() != "****" {
		t.Error("short number must be fully masked")
	}
}
