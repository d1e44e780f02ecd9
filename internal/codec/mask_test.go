package codec

import (
	"strings"
	"testing"
)

func TestDescribeMasksCardData(t *testing.T) {
	b, err := Describe(sampleCommands()[KindInitPayment])
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Contains(s, "4111111111111111") || strings.Contains(s, `"123"`) {
		t.Fatalf("Describe leaks card data: %s", s)
	}
	if !strings.Contains(s, `"411111******1111"`) || !strings.Contains(s, `"schema":"init_payment"`) {
		t.Fatalf("Describe = %s", s)
	}
	b, _ = Describe(&CommandResult{IdempotencyKey: "k1", Kind: KindCapture, Status: StatusAccepted})
	if !strings.Contains(string(b), `"status":"accepted"`) {
		t.Fatalf("Describe = %s", b)
	}
}
