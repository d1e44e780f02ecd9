package paysim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Faults are the sandbox's fault knobs. Outcomes of payments never depend on
// faults: test cards choose paths, faults only disturb transport.
type Faults struct {
	// Latency is added to every API call, inside its execution (so a
	// concurrent repeat of the same idempotency key sees it in progress).
	Latency time.Duration `json:"-"`
	// LatencyJitter adds a random extra delay drawn from LatencyDistribution.
	LatencyJitter time.Duration `json:"-"`
	// LatencyDistribution of the jitter: "uniform" (0..LatencyJitter, the
	// default) or "exponential" (mean LatencyJitter, capped at 10x).
	LatencyDistribution string `json:"latency_distribution,omitempty"`
	// ErrorRate is the probability (0..1) that a call fails with HTTP 500
	// code internal_error WITHOUT executing.
	ErrorRate float64 `json:"error_rate"`
	// DropRate is the probability (0..1) that a call executes and then the
	// connection is closed without a response.
	DropRate float64 `json:"drop_rate"`
	// WebhookRefuse is the probability (0..1) that a webhook attempt is
	// treated as refused by the partner (not sent, retried like a failure).
	WebhookRefuse float64 `json:"webhook_refuse"`
}

// faultsJSON is the admin wire form: durations in milliseconds, and
// webhook_refuse also accepted as a boolean (true = refuse every attempt).
type faultsJSON struct {
	LatencyMS       float64         `json:"latency_ms"`
	LatencyJitterMS float64         `json:"latency_jitter_ms"`
	Distribution    string          `json:"latency_distribution,omitempty"`
	ErrorRate       float64         `json:"error_rate"`
	DropRate        float64         `json:"drop_rate"`
	WebhookRefuse   json.RawMessage `json:"webhook_refuse,omitempty"`
}

// MarshalJSON writes the admin wire form.
func (f Faults) MarshalJSON() ([]byte, error) {
	refuse, _ := json.Marshal(f.WebhookRefuse)
	return json.Marshal(faultsJSON{
		LatencyMS:       float64(f.Latency) / float64(time.Millisecond),
		LatencyJitterMS: float64(f.LatencyJitter) / float64(time.Millisecond),
		Distribution:    f.LatencyDistribution, ErrorRate: f.ErrorRate, DropRate: f.DropRate,
		WebhookRefuse: refuse,
	})
}

// UnmarshalJSON reads the admin wire form.
func (f *Faults) UnmarshalJSON(b []byte) error {
	var w faultsJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*f = Faults{
		Latency:             time.Duration(w.LatencyMS * float64(time.Millisecond)),
		LatencyJitter:       time.Duration(w.LatencyJitterMS * float64(time.Millisecond)),
		LatencyDistribution: w.Distribution, ErrorRate: w.ErrorRate, DropRate: w.DropRate,
	}
	if len(w.WebhookRefuse) > 0 {
		var on bool
		if json.Unmarshal(w.WebhookRefuse, &on) == nil {
			if on {
				f.WebhookRefuse = 1
			}
		} else if err := json.Unmarshal(w.WebhookRefuse, &f.WebhookRefuse); err != nil {
			return fmt.Errorf("webhook_refuse: want a number 0..1 or a boolean: %w", err)
		}
	}
	return f.validate()
}

func (f Faults) validate() error {
	var errs []error
	for name, p := range map[string]float64{"ErrorRate": f.ErrorRate, "DropRate": f.DropRate, "WebhookRefuse": f.WebhookRefuse} {
		if p < 0 || p > 1 || math.IsNaN(p) {
			errs = append(errs, fmt.Errorf("%s: probability must be within 0..1", name))
		}
	}
	if f.Latency < 0 || f.LatencyJitter < 0 {
		errs = append(errs, errors.New("Latency, LatencyJitter: must not be negative"))
	}
	switch f.LatencyDistribution {
	case "", "uniform", "exponential":
	default:
		errs = append(errs, fmt.Errorf("LatencyDistribution: %q is not uniform or exponential", f.LatencyDistribution))
	}
	return errors.Join(errs...)
}

// dice draws the sandbox's random numbers from one seeded source.
type dice struct {
	mu  sync.Mutex
	rnd *rand.Rand
}

func newDice(seed uint64) *dice {
	return &dice{rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (d *dice) float() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rnd.Float64()
}

func (d *dice) chance(p float64) bool { return p > 0 && d.float() < p }

func (d *dice) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	d.mu.Lock()
	for i := range b {
		b[i] = digits[d.rnd.IntN(16)]
	}
	d.mu.Unlock()
	return string(b)
}

func (d *dice) digits(n int) string {
	b := make([]byte, n)
	d.mu.Lock()
	for i := range b {
		b[i] = byte('0' + d.rnd.IntN(10))
	}
	d.mu.Unlock()
	return string(b)
}

// latency draws the delay of one call.
func (f Faults) latency(d *dice) time.Duration {
	lat := f.Latency
	if f.LatencyJitter > 0 {
		u := d.float()
		if f.LatencyDistribution == "exponential" {
			lat += time.Duration(min(-math.Log(1-u), 10) * float64(f.LatencyJitter))
		} else {
			lat += time.Duration(u * float64(f.LatencyJitter))
		}
	}
	return lat
}
