package kit_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/internal/config"
)

func fakeRegistry(t *testing.T) *sr.Client {
	t.Helper()
	reg := srfake.New()
	t.Cleanup(reg.Close)
	cl, err := sr.NewClient(sr.URLs(reg.URL()))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func payout() *kit.InitPayout {
	return &kit.InitPayout{
		Instrument: kit.Instrument{Type: kit.InstrumentCard, Card: &kit.Card{Type: kit.CardBank,
			BankCard: &kit.BankCard{Number: "4111111111111111", ExpirationMonth: "12", ExpirationYear: "29"}}},
		Amount: 15000, Currency: "rub",
	}
}

// TestEncoderFormats encodes a command in each format and reads it back the
// way the connector does: the first byte tells the format, and the decoded
// command equals the one encoded.
func TestEncoderFormats(t *testing.T) {
	reg := fakeRegistry(t)
	tests := []struct {
		format kit.Format
		first  byte
	}{
		{kit.FormatJSON, '{'},
		{kit.FormatSingleObject, 0xC3},
		{kit.FormatConfluent, 0x00},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			ctx := context.Background()
			enc, err := kit.NewEncoder(kit.EncoderConfig{Format: tt.format, Registry: reg})
			if err != nil {
				t.Fatal(err)
			}
			rec, err := enc.Record(ctx, "payroll-0001", payout())
			if err != nil {
				t.Fatal(err)
			}
			if rec.Topic != "payments.commands.init-payout" || string(rec.Key) != "payroll-0001" || rec.Value[0] != tt.first {
				t.Fatalf("record %s %q first byte %#x", rec.Topic, rec.Key, rec.Value[0])
			}
			var got kit.Command
			if tt.format == kit.FormatJSON {
				got, err = kit.ParseJSON(kit.KindInitPayout, rec.Value)
			} else {
				dec, _ := kit.NewDecoder(kit.DecoderConfig{Registry: reg})
				var p kit.InitPayout
				err, got = dec.Decode(ctx, rec.Value, &p), &p
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, payout()) {
				t.Fatalf("read back %#v", got)
			}
		})
	}
}

// TestEncoderRefusesWhatTheConnectorWouldDeadLetter: an invalid command or
// key is an error at the producer, naming the field, not a dead letter.
func TestEncoderRefusesWhatTheConnectorWouldDeadLetter(t *testing.T) {
	enc, err := kit.NewEncoder(kit.EncoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, key string
		cmd       kit.Command
		field     string
	}{
		{"missing currency", "payroll-0002", &kit.InitPayout{Instrument: payout().Instrument, Amount: 1}, "currency"},
		{"short key", "k1", payout(), "key"},
		{"card number as key", "4111111111111111", payout(), "key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := enc.Record(context.Background(), tt.key, tt.cmd)
			var ve *kit.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.field {
				t.Fatalf("got %v, want a *ValidationError for %s", err, tt.field)
			}
			if strings.Contains(err.Error(), "4111111111111111") {
				t.Fatal("error quotes the card number")
			}
		})
	}
	if _, err := kit.NewEncoder(kit.EncoderConfig{Format: kit.FormatConfluent}); err == nil || !strings.Contains(err.Error(), "Registry") {
		t.Fatalf("Confluent without a registry: %v", err)
	}
}

// TestDecodeAny reads every outcome type in both Avro forms without being
// told its schema.
func TestDecodeAny(t *testing.T) {
	ctx := context.Background()
	reg := fakeRegistry(t)
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	records := []kit.Record{
		&kit.CommandResult{IdempotencyKey: "k-0001", Kind: kit.KindCapture, Status: kit.StatusRejected, CompletedAt: at},
		&kit.SessionState{Session: kit.Session{ID: "ps_1", Status: "accepted", Operations: []kit.Operation{}}, Source: kit.SourcePoll, ObservedAt: at, APIVersion: 2},
		&kit.WebhookEvent{EventID: "ab12", Type: "payout", SessionID: "ps_1", ReceivedAt: at, APIVersion: 1, Session: kit.Session{ID: "ps_1", Status: "accepted", Operations: []kit.Operation{}}},
		&kit.DeadLetter{OriginalTopic: "payments.commands.capture", OriginalValue: []byte("{"), OriginalHeaders: []kit.Header{}, Error: "bad", FailedAt: at},
		&kit.WalletBalance{WalletID: "w1", Amount: 5, Currency: "rub", ObservedAt: at, APIVersion: 1},
		&kit.FPSBanks{Banks: []kit.FPSBank{{ID: "1", EngName: "Bank", RuName: "Банк"}}, ObservedAt: at},
	}
	topics := kit.DefaultTopics()
	topicOf := map[kit.SchemaName]string{}
	for topic, n := range topics.Outcomes() {
		if topic != topics.SessionUpdates {
			topicOf[n] = topic
		}
	}
	outcomeEncoder := func(t *testing.T, r kit.Record, registry bool) []byte {
		if !registry {
			b, err := kit.EncodeSingleObject(r)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		schema, _ := kit.SchemaText(r.SchemaName())
		ss, err := reg.CreateSchema(ctx, topicOf[r.SchemaName()]+"-value", sr.Schema{Schema: schema, Type: sr.TypeAvro})
		if err != nil {
			t.Fatal(err)
		}
		b, err := kit.EncodeConfluent(ss.ID, r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dec, err := kit.NewDecoder(kit.DecoderConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	for _, registry := range []bool{false, true} {
		for _, want := range records {
			t.Run(string(want.SchemaName())+map[bool]string{false: "/single-object", true: "/confluent"}[registry], func(t *testing.T) {
				got, err := dec.DecodeAny(ctx, outcomeEncoder(t, want, registry))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got %#v\nwant %#v", got, want)
				}
			})
		}
	}
}

// TestDefaultTopicsAreTheConfigDefaults: each topic of DefaultTopics is the
// default of its PAYSESSION_TOPIC_* variable, and every such variable has
// its topic; but the control topic, whose records (operators' pause and
// resume) are no kit record.
func TestDefaultTopicsAreTheConfigDefaults(t *testing.T) {
	want := map[string]string{}
	for _, v := range config.Variables() {
		if name, ok := strings.CutPrefix(v.Name, config.Prefix+"TOPIC_"); ok && name != "CONTROL" {
			want[name] = v.Default
		}
	}
	d := kit.DefaultTopics()
	got := map[string]string{"RETRY": d.Retry, "ATTEMPTS": d.Attempts, "COMMAND_RESULTS": d.CommandResults,
		"SESSIONS": d.Sessions, "SESSION_UPDATES": d.SessionUpdates, "WEBHOOK_EVENTS": d.WebhookEvents,
		"DEAD_LETTER": d.DeadLetter, "WALLET_BALANCES": d.WalletBalances, "FPS_BANKS": d.FPSBanks}
	for k, topic := range d.Commands {
		got[strings.ToUpper(string(k))] = topic
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("kit topics by variable %v\nconfig defaults %v", got, want)
	}
}

func allTopics(t kit.Topics) []string {
	out := []string{t.Retry, t.Attempts, t.CommandResults, t.Sessions, t.SessionUpdates, t.WebhookEvents,
		t.DeadLetter, t.WalletBalances, t.FPSBanks}
	for _, k := range kit.Kinds() {
		out = append(out, t.Commands[k])
	}
	return out
}

// TestLatestOrdersLikeTheConnector covers each step of the rule: updated_at,
// then status rank, then progress of operations.
func TestLatestOrdersLikeTheConnector(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	st := func(status string, at time.Time, ops ...string) *kit.SessionState {
		s := &kit.SessionState{Session: kit.Session{ID: "ps_1", Status: status, UpdatedAt: &at}}
		for _, o := range ops {
			s.Session.Operations = append(s.Session.Operations, kit.Operation{Kind: kit.OperationPayout, ID: "op", Status: o})
		}
		return s
	}
	tests := []struct {
		name        string
		held, offer *kit.SessionState
		kept        bool
	}{
		{"later updated_at wins over rank", st("accepted", t0), st("in_progress", t1), true},
		{"earlier updated_at loses", st("in_progress", t1), st("accepted", t0), false},
		{"same time, higher rank", st("in_progress", t0), st("pending", t0), true},
		{"same time, lower rank", st("accepted", t0), st("pending", t0), false},
		{"same time and rank, more progress", st("in_progress", t0, "in_progress"), st("in_progress", t0, "succeeded"), true},
		{"the same state again", st("accepted", t0), st("accepted", t0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLatest(t, kit.LatestConfig{}, &clock{t1})
			if !l.Offer(tt.held) {
				t.Fatal("first state not kept")
			}
			if got := l.Offer(tt.offer); got != tt.kept {
				t.Fatalf("Offer = %v, want %v", got, tt.kept)
			}
			want := tt.held
			if tt.kept {
				want = tt.offer
			}
			if got, _ := l.Get("ps_1"); got != want {
				t.Fatalf("held %+v, want %+v", got.Session, want.Session)
			}
		})
	}
}

// TestSeenBounds: an event id is remembered for TTL and within MaxEntries.
func TestSeenBounds(t *testing.T) {
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	seen, err := kit.NewSeen(kit.SeenConfig{MaxEntries: 2, TTL: time.Hour, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		advance time.Duration
		id      string
		first   bool
	}{
		{0, "a", true},
		{0, "a", false},
		{59 * time.Minute, "a", false},
		{time.Minute, "a", true}, // an hour after it was first seen
		{0, "b", true},
		{0, "c", true}, // evicts a, the oldest
		{0, "a", true},
		{0, "c", false},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		if got := seen.First(s.id); got != s.first {
			t.Fatalf("step %d: First(%s) = %v, want %v", i, s.id, got, s.first)
		}
	}
	if _, err := kit.NewSeen(kit.SeenConfig{MaxEntries: -1, TTL: -time.Second}); err == nil ||
		!strings.Contains(err.Error(), "MaxEntries") || !strings.Contains(err.Error(), "TTL") {
		t.Fatalf("invalid config: %v", err)
	}
}
