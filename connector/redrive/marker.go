package redrive

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/header"
)

// Redrive markers. A run re-publishes a dead letter and writes, in the same
// transaction, a marker on the dead-letter topic: a record with the letter's
// key, no value and header.Redriven naming the letter. A later run reads the
// markers first and leaves the letters they name, so each letter is redriven
// once whatever filters each run used, and no group offset can hide a
// letter from a run. The markers also tell `inspect` which letters were
// redriven.

// letterAt is the position of a dead letter on the dead-letter topic.
type letterAt struct {
	Partition int32
	Offset    int64
}

func (l letterAt) String() string { return fmt.Sprintf("%d/%d", l.Partition, l.Offset) }

// markerOf is the redrive marker of the dead letter r.
func markerOf(r *kgo.Record) *kgo.Record {
	at := letterAt{r.Partition, r.Offset}
	return &kgo.Record{Topic: r.Topic, Key: r.Key, Headers: []kgo.RecordHeader{header.New(header.Redriven, at.String())}}
}

// markedLetter returns the letter a redrive marker names; ok is false for a
// record that is not a marker.
func markedLetter(r *kgo.Record) (letterAt, bool) {
	v, ok := header.Get(r, header.Redriven)
	if !ok {
		return letterAt{}, false
	}
	var at letterAt
	if _, err := fmt.Sscanf(v, "%d/%d", &at.Partition, &at.Offset); err != nil {
		return letterAt{-1, -1}, true // a marker, of no letter
	}
	return at, true
}

// IsMarker reports whether a record of the dead-letter topic is a redrive
// marker rather than a dead letter.
func IsMarker(r *kgo.Record) bool {
	_, ok := markedLetter(r)
	return ok
}

// redrivenLetters reads the markers of the run's scope: the letters
// redriven by earlier runs.
func redrivenLetters(ctx context.Context, opts []kgo.Opt, topic string, scope redriveScope) (map[letterAt]bool, error) {
	done := map[letterAt]bool{}
	err := readLetters(ctx, opts, topic, scope, func(recs []*kgo.Record) error {
		for _, r := range recs {
			if at, ok := markedLetter(r); ok {
				done[at] = true
			}
		}
		return nil
	})
	return done, err
}
