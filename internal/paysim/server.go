package paysim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysession/paysession/internal/signing"
)

// Server is the sandbox. It is safe for concurrent use. Create it with New,
// serve Handler() (or Start/Run), and Close it to stop its background work.
type Server struct {
	cfg      Config
	log      *slog.Logger
	projects map[string]*projectState
	signer   *signing.RSASigner
	dice     *dice
	q        *queue
	idem     *idemStore
	ledger   *ledger
	execs    *execLog
	hooks    *webhooks
	faults   atomic.Pointer[Faults]
	offset   atomic.Int64 // nanoseconds added to cfg.Clock by Advance
	handler  http.Handler

	mu        sync.Mutex // guards the state below
	sessions  map[string]*session
	order     []string // session ids by creation: eviction
	opIndex   map[string]*session
	seq       map[string]uint64
	cards     map[string]string // number_hash -> card number
	cardToken map[string]string // tokenize/elements token -> card number
	recurrent map[string]*recurrentToken
	public    map[string]*publicToken

	stop    context.CancelFunc
	bg      sync.WaitGroup
	srvMu   sync.Mutex
	httpSrv *http.Server
	addr    string
}

type projectState struct {
	Project
	verifier signing.Verifier
	wallets  map[string]int64 // guarded by Server.mu
}

// New validates cfg and returns a running sandbox (its background queue and
// webhook sender are started; Close stops them).
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("paysim config: %w", err)
	}
	cfg.applyDefaults()
	s := &Server{
		cfg: cfg, log: cfg.Logger, projects: map[string]*projectState{},
		signer: signing.NewRSASigner(cfg.ServiceKey, cfg.ServicePadding),
		dice:   newDice(cfg.Seed),
		idem:   newIdemStore(),
		ledger: newLedger(cfg.MaxLogEntries),
		execs:  newExecLog(cfg.MaxLogEntries),
	}
	_, real := cfg.Clock.(systemClock)
	s.q = newQueue(s.Now, real)
	s.hooks = newWebhooks(s)
	f := cfg.Faults
	s.faults.Store(&f)
	for _, p := range cfg.Projects {
		s.projects[p.ID] = &projectState{
			Project: p, verifier: signing.NewRSAVerifier(p.Padding, p.PublicKeys...), wallets: map[string]int64{},
		}
	}
	s.resetState()
	s.handler = s.routes()
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.bg.Add(1)
	go func() { defer s.bg.Done(); s.q.run(ctx) }()
	return s, nil
}

func (s *Server) resetState() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions = map[string]*session{}
	s.order = nil
	s.opIndex = map[string]*session{}
	if s.seq == nil {
		s.seq = map[string]uint64{} // ids keep growing across resets
	}
	s.cards = map[string]string{}
	s.cardToken = map[string]string{}
	s.recurrent = map[string]*recurrentToken{}
	s.public = map[string]*publicToken{}
	for _, p := range s.projects {
		p.wallets = map[string]int64{}
	}
}

// Reset forgets sessions, tokens, keys, logs, wallets and faults; the clock
// and id counters keep going.
func (s *Server) Reset() {
	s.q.clear()
	s.resetState()
	s.idem.reset()
	s.ledger.reset()
	s.execs.reset()
	s.hooks.reset()
	s.SetFaults(Faults{})
}

// Handler serves /api/v1, /api/v2, /admin/ and /sandbox/ (customer pages).
func (s *Server) Handler() http.Handler { return s.handler }

// Now is the sandbox's time: the configured clock plus every Advance, in
// UTC truncated to microseconds.
func (s *Server) Now() time.Time {
	return s.cfg.Clock.Now().Add(time.Duration(s.offset.Load())).UTC().Truncate(time.Microsecond)
}

// Advance moves the sandbox's time forward by d and queues the timers that
// became due (timeouts, webhook retries). Await their effects with WaitIdle.
func (s *Server) Advance(d time.Duration) {
	if d > 0 {
		s.offset.Add(int64(d))
	}
	s.q.promote()
}

// WaitIdle returns once no processing task is queued or running and no
// webhook attempt is in flight (future timers do not count).
func (s *Server) WaitIdle(ctx context.Context) error { return s.q.waitIdle(ctx) }

// SetFaults replaces the fault knobs.
func (s *Server) SetFaults(f Faults) error {
	if err := f.validate(); err != nil {
		return fmt.Errorf("set faults: %w", err)
	}
	s.faults.Store(&f)
	return nil
}

// Faults returns the current fault knobs.
func (s *Server) Faults() Faults { return *s.faults.Load() }

// Start listens on addr ("127.0.0.1:0" picks a port) and serves in the
// background; URL tells where. Close stops it.
func (s *Server) Start(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("paysim listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	s.srvMu.Lock()
	s.httpSrv, s.addr = srv, ln.Addr().String()
	s.srvMu.Unlock()
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("paysim serve", slog.Any("error", err))
		}
	}()
	s.log.Info("paysim listening", slog.String("addr", s.addr))
	return nil
}

// URL is the base URL of a started server (http://host:port), or "".
func (s *Server) URL() string {
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	if s.addr == "" {
		return ""
	}
	return "http://" + s.addr
}

// Run listens on addr until ctx ends, then shuts down gracefully.
func (s *Server) Run(ctx context.Context, addr string) error {
	if err := s.Start(addr); err != nil {
		return err
	}
	<-ctx.Done()
	return s.Shutdown(context.Background())
}

// Shutdown stops accepting requests, waits (bounded by ctx) for calls in
// progress, then stops the background work. In-flight webhook attempts are
// abandoned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.srvMu.Lock()
	srv := s.httpSrv
	s.srvMu.Unlock()
	var err error
	if srv != nil {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err = srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
	}
	s.stop()
	s.hooks.close()
	s.bg.Wait()
	return err
}

// Close shuts the server down; it is safe to call more than once.
func (s *Server) Close() error { return s.Shutdown(context.Background()) }

// nextID returns prefix_<number>, e.g. ps_17. Callers hold s.mu.
func (s *Server) nextID(prefix string) string {
	s.seq[prefix]++
	return fmt.Sprintf("%s_%d", prefix, s.seq[prefix])
}
