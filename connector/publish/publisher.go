package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
)

// BanksKey is the record key of every FPS bank list: the topic can be
// compacted down to the latest list.
const BanksKey = "fps-banks"

// API is the part of *payapi.Client the publishers call (v1 endpoints).
type API interface {
	WalletBalance(ctx context.Context, at time.Time, opts ...payapi.CallOption) ([]payapi.Wallet, error)
	FPSBanks(ctx context.Context, opts ...payapi.CallOption) ([]payapi.FPSBank, error)
}

// Config configures the publishers. A zero interval turns one off.
type Config struct {
	API      API               // required when any interval is set
	Producer outbound.Producer // required when any interval is set; publishes with ProduceSync
	Encoder  outbound.Encoder  // required when any interval is set
	// Sizer checks each record against its topic's limit (shared by the
	// connector's writers, pinned to the Producer's caps): one that would
	// not fit is not published (counted, logged). Default: Kafka's default
	// limit.
	Sizer *outbound.Sizer
	// WalletInterval publishes the wallet balances this often; 0 = off.
	WalletInterval time.Duration
	// BanksInterval publishes the FPS bank list this often; 0 = off.
	BanksInterval time.Duration
	// WalletTopic default "payments.wallet-balances".
	WalletTopic string
	// BanksTopic default "payments.fps-banks".
	BanksTopic string
	// CallTimeout bounds one API call and its publish. Default 30s.
	CallTimeout time.Duration
	// Registerer receives the metrics; nil registers nowhere.
	Registerer prometheus.Registerer
	// Logger is required.
	Logger *slog.Logger
	// Now stamps request_datetime and observed_at; default time.Now.
	Now func() time.Time
}

// Validate reports every missing or invalid field at once.
func (c Config) Validate() error {
	var errs []error
	if c.WalletInterval < 0 {
		errs = append(errs, fmt.Errorf("WalletInterval: %s is negative", c.WalletInterval))
	}
	if c.BanksInterval < 0 {
		errs = append(errs, fmt.Errorf("BanksInterval: %s is negative", c.BanksInterval))
	}
	if c.CallTimeout < 0 {
		errs = append(errs, fmt.Errorf("CallTimeout: %s is negative", c.CallTimeout))
	}
	if c.WalletInterval > 0 || c.BanksInterval > 0 {
		if c.API == nil {
			errs = append(errs, errors.New("API: required when a publisher is on"))
		}
		if c.Producer == nil {
			errs = append(errs, errors.New("Producer: required when a publisher is on"))
		}
		if c.Encoder == nil {
			errs = append(errs, errors.New("Encoder: required when a publisher is on"))
		}
	}
	if c.Logger == nil {
		errs = append(errs, errors.New("Logger: required"))
	}
	return errors.Join(errs...)
}

// Publishers runs the enabled periodic publishers.
type Publishers struct {
	cfg  Config
	runs *prometheus.CounterVec
}

// New validates cfg and returns the publishers.
func New(cfg Config) (*Publishers, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("publishers config: %w", err)
	}
	if cfg.WalletTopic == "" {
		cfg.WalletTopic = "payments.wallet-balances"
	}
	if cfg.BanksTopic == "" {
		cfg.BanksTopic = "payments.fps-banks"
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sizer == nil {
		cfg.Sizer, _ = outbound.NewSizer(nil, nil, cfg.Logger) // registers nothing: cannot fail
	}
	p := &Publishers{cfg: cfg, runs: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "paysession_publish_runs_total",
		Help: "Periodic publisher runs by publisher (wallet_balance, fps_banks) and result (ok, error).",
	}, []string{"publisher", "result"})}
	if cfg.Registerer != nil {
		if err := cfg.Registerer.Register(p.runs); err != nil {
			return nil, fmt.Errorf("publishers metrics: %w", err)
		}
	}
	return p, nil
}

// Run publishes at once and then every interval until ctx ends. With both
// publishers off it just waits for ctx.
func (p *Publishers) Run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	if p.cfg.WalletInterval > 0 {
		g.Go(func() error { return p.every(ctx, "wallet_balance", p.cfg.WalletInterval, p.PublishWalletBalances) })
	}
	if p.cfg.BanksInterval > 0 {
		g.Go(func() error { return p.every(ctx, "fps_banks", p.cfg.BanksInterval, p.PublishFPSBanks) })
	}
	g.Go(func() error { <-ctx.Done(); return nil })
	return g.Wait()
}

func (p *Publishers) every(ctx context.Context, name string, d time.Duration, fn func(context.Context) error) error {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, p.cfg.CallTimeout)
		err := fn(cctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			p.runs.WithLabelValues(name, "error").Inc()
			p.cfg.Logger.Warn("periodic publish failed", slog.String("publisher", name), slog.Any("error", err))
		} else if err == nil {
			p.runs.WithLabelValues(name, "ok").Inc()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// PublishWalletBalances calls wallet/balance and publishes one record per
// wallet.
func (p *Publishers) PublishWalletBalances(ctx context.Context) error {
	now := p.cfg.Now()
	wallets, err := p.cfg.API.WalletBalance(ctx, now)
	if err != nil {
		return fmt.Errorf("wallet balance: %w", err)
	}
	var recs []*kgo.Record
	for _, w := range wallets {
		wb := &codec.WalletBalance{WalletID: w.ID, ObservedAt: now.UTC(), APIVersion: 1}
		if w.Amount != nil {
			wb.Amount, wb.Currency = w.Amount.Value, w.Amount.Currency
		}
		r, err := p.cfg.Sizer.Fit(ctx, p.cfg.Encoder, kgo.Record{Topic: p.cfg.WalletTopic, Key: []byte(w.ID)}, outbound.Form{Value: wb})
		if err != nil {
			return fmt.Errorf("wallet balance: %w", err)
		}
		if r != nil { // nil: too large for the topic (counted, logged)
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		return nil
	}
	if err := p.cfg.Producer.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("publish wallet balances: %w", err)
	}
	return nil
}

// PublishFPSBanks calls fps/banks and publishes the list as one record.
func (p *Publishers) PublishFPSBanks(ctx context.Context) error {
	banks, err := p.cfg.API.FPSBanks(ctx)
	if err != nil {
		return fmt.Errorf("fps banks: %w", err)
	}
	out := &codec.FPSBanks{Banks: make([]codec.FPSBank, 0, len(banks)), ObservedAt: p.cfg.Now().UTC()}
	for _, b := range banks {
		out.Banks = append(out.Banks, codec.FPSBank{ID: b.ID, EngName: b.EngName, RuName: b.RuName})
	}
	rec, err := p.cfg.Sizer.Fit(ctx, p.cfg.Encoder, kgo.Record{Topic: p.cfg.BanksTopic, Key: []byte(BanksKey)}, outbound.Form{Value: out})
	if err != nil {
		return fmt.Errorf("fps banks: %w", err)
	}
	if rec == nil {
		return nil // too large for the topic: counted and logged; the last list stays
	}
	if err := p.cfg.Producer.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("publish fps banks: %w", err)
	}
	return nil
}

var _ API = (*payapi.Client)(nil)
