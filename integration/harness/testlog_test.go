package harness

import (
	"strings"
	"testing"
)

func TestTailBufferKeepsTheLastBytes(t *testing.T) {
	b := &tailBuffer{max: 10}
	for _, s := range []string{"abc", "defgh", "ijklmnop", "qrstuvwxyz0123"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.String(); got != "uvwxyz0123" {
		t.Errorf("String() = %q, want the last 10 bytes %q", got, "uvwxyz0123")
	}
	if len(b.buf) > 2*b.max {
		t.Errorf("holds %d bytes, want at most %d", len(b.buf), 2*b.max)
	}
	short := &tailBuffer{max: 10}
	short.Write([]byte("hi"))
	if short.String() != "hi" {
		t.Errorf("String() = %q, want %q", short.String(), "hi")
	}
}

func TestFailureLogIsOnePerTest(t *testing.T) {
	t.Setenv("HARNESS_TEST_LOG", "")
	w := FailureLog(t, "HARNESS_TEST_LOG")
	if FailureLog(t, "HARNESS_TEST_LOG") != w {
		t.Error("a second call gave another writer")
	}
	Logger(t, "HARNESS_TEST_LOG").Info("hello", "body", `{"number":"4111 1111 1111 1111"}`)
	got := w.(*tailBuffer).String()
	if !strings.Contains(got, "msg=hello") {
		t.Errorf("the logger did not write to the test's buffer: %q", got)
	}
	if strings.Contains(got, "1111 1111") {
		t.Errorf("the test's log kept a card number: %q", got)
	}
}
