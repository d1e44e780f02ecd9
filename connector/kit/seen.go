package kit

import (
	"errors"
	"fmt"
	"time"

	"github.com/paysession/paysession/internal/fifo"
)

// SeenConfig bounds the memory of a Seen.
type SeenConfig struct {
	// MaxEntries is the number of event ids remembered; the oldest is
	// forgotten first. Default 100000.
	MaxEntries int
	// TTL forgets an event id this long after it was first seen. Default
	// 25h: the service retries a webhook for 30 minutes, and the connector
	// may publish a redelivered webhook again within its own dedupe window
	// (24h).
	TTL time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Validate reports every invalid field at once.
func (c SeenConfig) Validate() error {
	var errs []error
	if c.MaxEntries < 0 {
		errs = append(errs, fmt.Errorf("MaxEntries: %d is negative", c.MaxEntries))
	}
	if c.TTL < 0 {
		errs = append(errs, fmt.Errorf("TTL: %s is negative", c.TTL))
	}
	return errors.Join(errs...)
}

// Seen dedupes webhook events by event id (WebhookEvent.EventID, also the
// header HeaderEventID): the same webhook may be published more than once
// (a redelivery to another replica, a replay after a restart), always with
// the same event id. It is safe for concurrent use.
type Seen struct {
	now func() time.Time
	ids *fifo.Set[string, struct{}]
}

// NewSeen returns an empty Seen.
func NewSeen(cfg SeenConfig) (*Seen, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kit seen: %w", err)
	}
	if cfg.MaxEntries == 0 {
		cfg.MaxEntries = 100000
	}
	if cfg.TTL == 0 {
		cfg.TTL = 25 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Seen{now: cfg.Now, ids: fifo.New[string, struct{}](cfg.MaxEntries, cfg.TTL)}, nil
}

// First reports whether eventID is seen for the first time within TTL, and
// remembers it: act on an event only when First returns true.
func (s *Seen) First(eventID string) bool {
	_, first := s.ids.GetOrAdd(eventID, s.now(), func() struct{} { return struct{}{} })
	return first
}

// Len returns the number of event ids remembered.
func (s *Seen) Len() int { return s.ids.Len(s.now()) }
