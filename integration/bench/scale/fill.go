package main

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// fill is what a sessions partition holds before a takeover: Historical
// sessions last written between 400 and 30 days before Now, then Recent
// ones written within the day before Now, each once, in the writer's own
// encoding and settled (accepted, its payment succeeded), so that the
// reconciler polls none of them. Record timestamps grow with the offset,
// as the writer's own appends make them, so Kafka's time index finds the
// first record of any age.
type fill struct {
	Historical, Recent int
	Now                time.Time
}

// Historical sessions span [Now-historyFrom, Now-historyTo); recent ones
// [Now-recentFrom, Now).
const (
	historyFrom = 400 * 24 * time.Hour
	historyTo   = 30 * 24 * time.Hour
	recentFrom  = 24 * time.Hour
	// stampLag is how long before the connector's record the service
	// stamped the session's updated_at.
	stampLag = 2 * time.Second
)

// filled is what a fill wrote.
type filled struct {
	Records int     `json:"records"`
	Bytes   int64   `json:"value_bytes"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"records_per_second"`
}

// fillClientOpts are the producer options of a fill: large lz4 batches,
// many of them buffered, to one partition named by each record.
func fillClientOpts(brokers []string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(1_000_000),
		kgo.ProducerBatchCompression(kgo.Lz4Compression()),
		kgo.ProducerLinger(5 * time.Millisecond),
		kgo.MaxBufferedRecords(200_000),
	}
}

// at returns the record time of session i of the fill (historical ones
// first).
func (f fill) at(i int) time.Time {
	if i < f.Historical {
		span := historyFrom - historyTo
		return f.Now.Add(-historyFrom + time.Duration(float64(span)*float64(i)/float64(f.Historical)))
	}
	j := i - f.Historical
	return f.Now.Add(-recentFrom + time.Duration(float64(recentFrom)*float64(j)/float64(f.Recent)))
}

// sessionID names session i in the service's shape, ps_<number>, all of
// one width so that every session costs the writer the same.
func sessionID(i int) string { return fmt.Sprintf("ps_%d", 1_000_000_000+i) }

// session returns the state of session i as the session writer wrote it
// at record time at: accepted, its card payment succeeded.
func session(i int, at time.Time) *codec.SessionState {
	updated := at.Add(-stampLag)
	created := updated.Add(-90 * time.Second)
	amount, fee := int64(1000+i%500_000), int64(10+i%5000)
	rub := "RUB"
	str := func(format string, a ...any) *string { s := fmt.Sprintf(format, a...); return &s }
	idem, hook, project := str("cmd-%010d-init-payment", i), "payment_finished", "scale"
	meta := codec.Metadata(fmt.Sprintf(`{"order_id":"ord-%010d","channel":"web","basket":%d}`, i, i%17))
	return &codec.SessionState{
		Session: codec.Session{
			ID: sessionID(i), Status: "accepted", CreatedAt: &created, UpdatedAt: &updated,
			Operations: []codec.Operation{{
				Kind: codec.OperationPayment, ID: fmt.Sprintf("op_%010d", i), Status: "succeeded",
				CreatedAt: &created, FinishedAt: &updated, Amount: &amount, Currency: &rub,
				FeeAmount: &fee, FeeCurrency: &rub, RRN: str("%012d", 400_000_000_000+i), AuthCode: str("%06d", i%1_000_000),
				Instrument: &codec.InstrumentSummary{Type: "card", CardType: str("credit"), CardBIN: str("424242"),
					CardLast4: str("%04d", i%10_000), CardBrand: str("visa")},
				CustomerReference: str("customer-%08d", i%50_000_000),
				RedirectURL:       str("https://acs.example.com/3ds/challenge/%010d", i),
				Metadata:          &meta,
				RecurringToken:    &codec.RecurringToken{Token: fmt.Sprintf("rt_%010d_%020d", i, i*7919), IsActive: true, CreatedAt: &updated},
			}},
		},
		Source: codec.SourceWebhook, ObservedAt: updated, APIVersion: 1,
		IdempotencyKey: idem, WebhookType: &hook, Project: &project,
	}
}

// produce writes the fill to partition 0 of topic with cl (made with
// fillClientOpts), in order, and waits until every record is acknowledged.
func (f fill) produce(ctx context.Context, cl *kgo.Client, topic string) (filled, error) {
	enc, err := codec.NewEncoder(codec.EncoderConfig{})
	if err != nil {
		return filled{}, err
	}
	var (
		mu    sync.Mutex
		first error
	)
	done := func(_ *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			first = cmp.Or(first, err)
			mu.Unlock()
		}
	}
	started := time.Now()
	var out filled
	for i := range f.Historical + f.Recent {
		if i%4096 == 0 && ctx.Err() != nil {
			return out, ctx.Err()
		}
		at := f.at(i)
		v, err := enc.Encode(ctx, topic, session(i, at))
		if err != nil {
			return out, fmt.Errorf("encode session %d: %w", i, err)
		}
		cl.Produce(ctx, &kgo.Record{Topic: topic, Partition: 0, Key: []byte(sessionID(i)), Value: v, Timestamp: at}, done)
		out.Records++
		out.Bytes += int64(len(v))
	}
	if err := cl.Flush(ctx); err != nil {
		return out, fmt.Errorf("fill %s: %w", topic, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if first != nil {
		return out, fmt.Errorf("fill %s: %w", topic, first)
	}
	out.Seconds = time.Since(started).Seconds()
	out.Rate = float64(out.Records) / out.Seconds
	return out, nil
}
