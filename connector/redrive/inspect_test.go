package redrive

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/header"
)

// TestInspect: letters grouped by error code and field, largest first, with
// counts, the redriven ones counted from their markers, samples masked and
// markers left out.
func TestInspect(t *testing.T) {
	seeds := newCluster(t)
	code := func(c, field string) []kgo.RecordHeader {
		return []kgo.RecordHeader{header.New(header.ErrorCode, c), header.New(header.ErrorField, field)}
	}
	letters := []*kgo.Record{
		letterRecord(t, "key-1", 1, code("invalid_request", "amount")...),
		letterRecord(t, "key-2", 2, code("invalid_request", "amount")...),
		letterRecord(t, "key-3", 3, code("invalid_request", "currency")...),
		letterRecord(t, "key-4", 4, code("schema_registry_unavailable", "")...),
	}
	produce(t, seeds, letters...)
	produce(t, seeds, markerOf(letters[1])) // key-2 was redriven
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, err := Inspect(ctx, InspectConfig{Kafka: []kgo.Opt{kgo.SeedBrokers(seeds...)}, DeadLetter: deadLetter,
		Decode: decodeLetter(t), Samples: 1})
	if err != nil {
		t.Fatal(err)
	}
	if in.Letters != 4 || len(in.Groups) != 3 {
		t.Fatalf("inspection: %d letters, %d groups; want 4 and 3", in.Letters, len(in.Groups))
	}
	first := in.Groups[0]
	if first.ErrorCode != "invalid_request" || first.Field != "amount" || first.Count != 2 || first.Redriven != 1 || len(first.Samples) != 1 {
		t.Errorf("largest group %+v", first)
	}
	if s := first.Samples[0]; s.Key != "key-1" || s.Source != src+"/0/1" || s.Value != `{"session_id":"ps_1"}` {
		t.Errorf("sample %+v", s)
	}
	filtered, err := Inspect(ctx, InspectConfig{Kafka: []kgo.Opt{kgo.SeedBrokers(seeds...)}, DeadLetter: deadLetter,
		Decode: decodeLetter(t), Filter: Filter{ErrorCodes: []string{"schema_registry_unavailable"}}})
	if err != nil || filtered.Letters != 1 || len(filtered.Groups) != 1 {
		t.Fatalf("filtered inspection %+v, %v", filtered, err)
	}
}

// TestSampleMasked: a sample never shows a card number or security code,
// even of a letter that holds one.
func TestSampleMasked(t *testing.T) {
	const pan = "4111111111111111"
	r := letterRecord(t, "key-card", 1)
	dl, err := decodeLetter(t)(r.Value)
	if err != nil {
		t.Fatal(err)
	}
	dl.OriginalValue = []byte(`{"number":"` + pan + `","security_code":"737"}`)
	dl.Error = "bad number " + pan
	s := sampleOf(r, dl, false)
	if strings.Contains(s.Value+s.Error, pan) || strings.Contains(s.Value, `"737"`) {
		t.Errorf("sample holds card data: %+v", s)
	}
}
