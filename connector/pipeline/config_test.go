package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
		want []string // fields named in the error; none: valid
	}{
		{"defaults are valid", func(*Config) {}, nil},
		{"missing required", func(c *Config) { c.GroupID, c.TransactionalID, c.API, c.Decoder, c.Encoder = "", "", nil, nil, nil },
			[]string{"GroupID", "TransactionalID", "API", "Decoder", "Encoder"}},
		{"batch too long", func(c *Config) { c.BatchDeadline, c.TransactionTimeout = 20*time.Second, 30*time.Second }, []string{"BatchDeadline"}},
		{"margin past key lifetime", func(c *Config) { c.KeyLifetimeMargin = 25 * time.Hour }, []string{"KeyLifetimeMargin"}},
		{"shared topic", func(c *Config) { c.Topics.Commands["refund"] = c.Topics.Commands["capture"] }, []string{"Topics.Commands"}},
		{"retry initial above max", func(c *Config) { c.Retry = RetryPolicy{Initial: time.Second, Max: time.Millisecond} }, []string{"Retry.Initial"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{GroupID: "g", TransactionalID: "tx", API: &fakeAPI{}, Decoder: &jsonCodec{}, Encoder: &jsonCodec{}}
			cfg.defaults()
			tt.mod(&cfg)
			cfg.Retry = cfg.Retry.withDefaults()
			err := cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate = nil, want errors naming %v", tt.want)
			}
			for _, f := range tt.want {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q does not name %s", err, f)
				}
			}
		})
	}
}

func TestLimiter(t *testing.T) {
	l := newLimiter(200, 1)
	start := time.Now()
	for range 11 {
		if err := l.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 45*time.Millisecond {
		t.Fatalf("11 tokens at 200/s with burst 1 took %v, want about 50ms", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	slow := newLimiter(0.001, 1)
	_ = slow.wait(context.Background()) // the burst token
	if err := slow.wait(ctx); err == nil {
		t.Fatal("wait on a cancelled context succeeded")
	}
	if newLimiter(0, 1) != nil {
		t.Fatal("rate 0 must mean no limiter")
	}
}
