package codec

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
)

// TestConfluentWriterMustBeOfTheCommandSubject: a schema id that resolves
// but is registered only under another subject is refused, naming the
// command topic's subject; the same id registered under it decodes.
func TestConfluentWriterMustBeOfTheCommandSubject(t *testing.T) {
	reg, cl := newFakeRegistry(t)
	ctx := context.Background()
	topic := KindCapture.DefaultTopic()
	// The capture schema, registered only under another topic's subject.
	other, err := NewEncoder(EncoderConfig{Registry: cl})
	if err != nil {
		t.Fatal(err)
	}
	value, err := other.Encode(ctx, "somebody.elses.topic", &Capture{SessionID: "ps_1"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	dec, _ := NewDecoder(DecoderConfig{Registry: cl, Now: func() time.Time { return now }})
	_, err = dec.Decode(ctx, topic, KindCapture, value)
	var de *DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "not registered under subject "+Subject(topic)) {
		t.Fatalf("schema of another subject: %v, want a *DecodeError naming %s", err, Subject(topic))
	}
	// Outcome readers (DecodeRecord) are not bound to a subject.
	if err := dec.DecodeRecord(ctx, value, &Capture{}); err != nil {
		t.Fatalf("DecodeRecord: %v", err)
	}
	// Registered under the command's subject too (same schema, same id):
	// the refusal holds for RefusalTTL, then the registry is asked again
	// and the record decodes, without a restart.
	if _, _, err := reg.RegisterSchema(Subject(topic), sr.Schema{Schema: MustSchema(KindCapture.SchemaName()).String()}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(RefusalTTL - time.Second)
	if _, err := dec.Decode(ctx, topic, KindCapture, value); err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Fatalf("within RefusalTTL the refusal is kept: %v", err)
	}
	now = now.Add(time.Second)
	if _, err := dec.Decode(ctx, topic, KindCapture, value); err != nil {
		t.Fatalf("after RefusalTTL, registered under the command's subject: %v", err)
	}
	fresh, _ := NewDecoder(DecoderConfig{Registry: cl})
	if _, err := fresh.Decode(ctx, "", KindCapture, value); !errors.As(err, &de) {
		t.Fatalf("no topic: %v, want a *DecodeError", err)
	}
}

// TestConfluentSubjectLookupErrors: a registry that fails the subject lookup
// is transient (*RegistryError, asked again next time); an id the registry
// no longer lists is final; answers are kept.
func TestConfluentSubjectLookupErrors(t *testing.T) {
	reg, cl := newFakeRegistry(t)
	ctx := context.Background()
	topic := KindConfirm.DefaultTopic()
	enc, _ := NewEncoder(EncoderConfig{Registry: cl})
	value, err := enc.Encode(ctx, topic, &Confirm{SessionID: "ps_1"})
	if err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int32
	var fail atomic.Int32 // 0: pass, else the status to answer the lookup with
	reg.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/versions") || !strings.HasPrefix(r.URL.Path, "/schemas/ids/") {
			return false
		}
		lookups.Add(1)
		if s := fail.Load(); s != 0 {
			w.WriteHeader(int(s))
			_, _ = w.Write([]byte(`{"error_code":40403,"message":"Schema not found"}`))
			return true
		}
		return false
	})
	dec, _ := NewDecoder(DecoderConfig{Registry: cl})
	fail.Store(http.StatusServiceUnavailable)
	var re *RegistryError
	if _, err := dec.Decode(ctx, topic, KindConfirm, value); !errors.As(err, &re) {
		t.Fatalf("registry failing: %v (%T), want *RegistryError", err, err)
	}
	fail.Store(0)
	if _, err := dec.Decode(ctx, topic, KindConfirm, value); err != nil {
		t.Fatalf("registry back: %v", err)
	}
	n := lookups.Load()
	if _, err := dec.Decode(ctx, topic, KindConfirm, value); err != nil || lookups.Load() != n {
		t.Fatalf("second decode: %v, %d lookups (want the answer kept, %d)", err, lookups.Load(), n)
	}
	dec, _ = NewDecoder(DecoderConfig{Registry: cl})
	fail.Store(http.StatusNotFound)
	var de *DecodeError
	if _, err := dec.Decode(ctx, topic, KindConfirm, value); !errors.As(err, &de) || !strings.Contains(err.Error(), Subject(topic)) {
		t.Fatalf("id not listed: %v, want a *DecodeError naming the subject", err)
	}
}

// TestUnknownSchemaIDAskedOncePerRefusalTTL: records naming a schema id the
// registry does not know cost one registry request per id within
// RefusalTTL, not one per record; the refusals kept are bounded by
// MaxRefusals whatever ids the records choose.
func TestUnknownSchemaIDAskedOncePerRefusalTTL(t *testing.T) {
	reg, cl := newFakeRegistry(t)
	ctx := context.Background()
	var fetches atomic.Int32
	reg.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/schemas/ids/") && !strings.HasSuffix(r.URL.Path, "/versions") {
			fetches.Add(1)
		}
		return false
	})
	now := time.Unix(1_800_000_000, 0)
	dec, _ := NewDecoder(DecoderConfig{Registry: cl, Now: func() time.Time { return now }})
	value := func(id uint32) []byte { return binary.BigEndian.AppendUint32([]byte{0}, id) }
	topic := KindConfirm.DefaultTopic()
	var de *DecodeError
	for range 3 {
		if _, err := dec.Decode(ctx, topic, KindConfirm, value(4242)); !errors.As(err, &de) || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("unknown id: %v, want a *DecodeError", err)
		}
	}
	if n := fetches.Load(); n != 1 {
		t.Fatalf("3 records of one unknown id asked the registry %d times, want 1", n)
	}
	now = now.Add(RefusalTTL)
	if _, err := dec.Decode(ctx, topic, KindConfirm, value(4242)); !errors.As(err, &de) {
		t.Fatalf("unknown id after RefusalTTL: %v", err)
	}
	if n := fetches.Load(); n != 2 {
		t.Fatalf("after RefusalTTL the registry was asked %d times in all, want 2", n)
	}
	for id := range uint32(MaxRefusals + 100) {
		_, _ = dec.Decode(ctx, topic, KindConfirm, value(10_000+id))
	}
	if n := dec.refusals.Len(now); n > MaxRefusals {
		t.Fatalf("%d refusals kept, want at most %d", n, MaxRefusals)
	}
}
