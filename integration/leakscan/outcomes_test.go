package leakscan_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// checkOutcomes checks what the results and dead letters of the scan's
// commands say, beyond holding no card data: a command with card data in
// its free text is invalid naming the field (issue 37 item 2); an echoed
// API error's field and rule are parsed or "unparseable", never free text
// (item 1); the outcome records of the card-number key are keyed by
// nothing computed from the card (item 3).
func checkOutcomes(t *testing.T, records, commands []*kgo.Record, resultsTopic, deadLetterTopic string) {
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	results := map[position]codec.CommandResult{}
	keys := map[position][]string{} // the keys of a command's outcome records and their key fields
	for _, rec := range records {
		switch rec.Topic {
		case resultsTopic:
			var res codec.CommandResult
			if err := dec.DecodeRecord(context.Background(), rec.Value, &res); err != nil {
				t.Fatalf("decode result: %v", err)
			}
			at := position{res.SourceTopic, res.SourcePartition, res.SourceOffset}
			results[at] = res
			keys[at] = append(keys[at], string(rec.Key), res.IdempotencyKey)
		case deadLetterTopic:
			var dl codec.DeadLetter
			if err := dec.DecodeRecord(context.Background(), rec.Value, &dl); err != nil {
				t.Fatalf("decode dead letter: %v", err)
			}
			at := position{dl.OriginalTopic, dl.OriginalPartition, dl.OriginalOffset}
			keys[at] = append(keys[at], string(rec.Key), string(dl.OriginalKey))
		}
	}
	for _, c := range commands {
		at := positionOf(c)
		res, ok := results[at]
		if !ok {
			t.Errorf("%s: no result", c.Key)
			continue
		}
		key := string(c.Key)
		switch {
		case strings.Contains(key, "-freetext-"):
			var i int
			_, _ = fmt.Sscanf(key[strings.LastIndex(key, "-")+1:], "%d", &i)
			if res.Status != codec.StatusInvalid || deref(res.ErrorField) != freeTextCommands[i].field || deref(res.ErrorRule) != codec.RuleCardData {
				t.Errorf("%s: %s %s/%s, want invalid %s/%s", key, res.Status, deref(res.ErrorField), deref(res.ErrorRule),
					freeTextCommands[i].field, codec.RuleCardData)
			}
		case strings.Contains(key, echoMarker):
			if res.Status != codec.StatusRejected {
				t.Errorf("%s: %s, want rejected by the echoing API", key, res.Status)
			}
			// Safe to print: the record was scanned.
			t.Logf("%s: code %q field %q rule %q description %.160q", key[strings.Index(key, echoMarker)+1:],
				deref(res.ErrorCode), deref(res.ErrorField), deref(res.ErrorRule), deref(res.ErrorDescription))
			for what, v := range map[string]string{"code": deref(res.ErrorCode), "field": deref(res.ErrorField), "rule": deref(res.ErrorRule)} {
				if v != "" && v != "unparseable" && v != "invalid_request" && v != "payment_details.card.bank_card.number" {
					t.Errorf("%s: error %s %q is neither parsed nor the placeholder", key, what, v)
				}
			}
		case strings.Contains(key, parkMarker):
			if res.Status != codec.StatusAccepted || res.Attempts < 2 {
				t.Errorf("%s: %s after %d attempts, want accepted after being parked", key, res.Status, res.Attempts)
			}
		case key == cardKey:
			if res.Status != codec.StatusInvalid || deref(res.ErrorField) != "key" {
				t.Errorf("card key: %s %s, want invalid key", res.Status, deref(res.ErrorField))
			}
			if len(keys[at]) != 4 {
				t.Errorf("card key: %d outcome keys, want a result and a dead letter with two each", len(keys[at]))
			}
			for _, k := range keys[at] {
				checkNotFromCard(t, k, paysim.CardDeclined)
			}
			t.Logf("the card key's outcome key: %q (by position: %v)", keys[at][0],
				keys[at][0] == codec.OutcomeKeyAt(key, codec.Position{Topic: c.Topic, Partition: c.Partition, Offset: c.Offset}))
		}
	}
}

// checkNotFromCard fails t when a published key could be matched against
// candidate card numbers: when a run of digits in it holds six digits of pan
// in a row (a bin, or any other run), or it holds any eight hex digits of
// the SHA-256 of pan written in any of the forms a key may take.
func checkNotFromCard(t *testing.T, key, pan string) {
	t.Helper()
	runs := strings.FieldsFunc(key, func(r rune) bool { return r < '0' || r > '9' })
	for i := 0; i+6 <= len(pan); i++ {
		for _, run := range runs {
			if strings.Contains(run, pan[i:i+6]) {
				t.Errorf("outcome key %q holds digits %s… of the card", key, pan[i:i+2])
			}
		}
	}
	for _, form := range []string{pan, grouped(pan, "."), grouped(pan, " "), grouped(pan, "-"), grouped(pan, "/"), strings.ToUpper(pan)} {
		sum := sha256.Sum256([]byte(form))
		h := hex.EncodeToString(sum[:])
		for i := 0; i+8 <= len(key); i++ {
			if strings.Contains(h, strings.ToLower(key[i:i+8])) {
				t.Errorf("outcome key %q holds part of a SHA-256 of the card", key)
				break
			}
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
