package connector

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// HTTPServer is an http.Server as a part with Run(ctx): it serves until ctx
// ends, then shuts down gracefully within Grace (in-flight requests are
// answered, new connections refused).
//
// The timeouts and the header limit bound what one connection can hold: a
// client that never finishes its headers (slowloris) is cut off after
// ReadHeaderTimeout, one that trickles its body after ReadTimeout, an idle
// keep-alive connection after IdleTimeout. MaxConnections bounds how many
// connections it holds, so that a flood of them cannot take every file
// descriptor of the process (and with them the other listener's probes).
// Zero values take the defaults shown (Default* below).
//
// What net/http itself logs (a handler's panic, a failed TLS handshake)
// goes to Logger, redacted like every other line.
type HTTPServer struct {
	Name     string
	Listener net.Listener
	Handler  http.Handler
	Grace    time.Duration
	Logger   *slog.Logger

	// ReadHeaderTimeout bounds reading a request's headers. Default 10s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, headers and body.
	// Default 30s.
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from the end of its headers to the end
	// of the answer; it must cover the handler's own waits (the webhook
	// ingress waits up to its PublishTimeout for Kafka). Default 30s.
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long. Default 2m.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's headers. Default
	// http.DefaultMaxHeaderBytes (1 MiB).
	MaxHeaderBytes int
	// MaxConnections bounds the connections open at once. Beyond it a new
	// connection waits in the kernel's accept backlog, holding no file
	// descriptor of the process, until one closes; meanwhile idle
	// keep-alive connections, and connections silent for 5s since they
	// opened, are closed to make room. Default DefaultMaxConnections.
	MaxConnections int
}

// Defaults of HTTPServer's timeouts.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultMaxConnections    = 1024
)

// server returns the http.Server, defaults applied.
func (s *HTTPServer) server() *http.Server {
	orDefault := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	maxHeader := s.MaxHeaderBytes
	if maxHeader <= 0 {
		maxHeader = http.DefaultMaxHeaderBytes
	}
	srv := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: orDefault(s.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       orDefault(s.ReadTimeout, DefaultReadTimeout),
		WriteTimeout:      orDefault(s.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:       orDefault(s.IdleTimeout, DefaultIdleTimeout),
		MaxHeaderBytes:    maxHeader,
	}
	if s.Logger != nil {
		srv.ErrorLog = errorLog(s.Logger, s.Name)
	}
	return srv
}

// errorLog returns the log.Logger that net/http writes its own complaints
// to (a handler's panic with its value, a failed TLS handshake, an accept
// error): one error line of logger, marked with the server's name. Without
// it they would go to the standard library's logger, past the redaction of
// card numbers, keys and secrets.
func errorLog(logger *slog.Logger, server string) *log.Logger {
	return slog.NewLogLogger(logger.With(slog.String("server", server)).Handler(), slog.LevelError)
}

// Listen opens a TCP listener for addr; ":0" picks a free port.
func Listen(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return l, nil
}

// Run serves until ctx ends and returns after the graceful shutdown.
func (s *HTTPServer) Run(ctx context.Context) error {
	srv := s.server()
	maxConns := s.MaxConnections
	if maxConns <= 0 {
		maxConns = DefaultMaxConnections
	}
	// Turning keep-alives off closes the idle connections (and those
	// silent for 5s since they opened); they are on again at once.
	shed := func() { srv.SetKeepAlivesEnabled(false); srv.SetKeepAlivesEnabled(true) }
	l := capListener(s.Listener, maxConns, shed)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	s.Logger.Info("http server listening", slog.String("server", s.Name), slog.String("addr", s.Listener.Addr().String()))
	select {
	case err := <-errc:
		return fmt.Errorf("%s server: %w", s.Name, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.Grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serveErr := <-errc; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	if err != nil {
		return fmt.Errorf("%s server shutdown: %w", s.Name, err)
	}
	s.Logger.Info("http server stopped", slog.String("server", s.Name))
	return nil
}

// shedInterval is how often a listener at its cap asks to close idle
// connections while a new one waits.
const shedInterval = time.Second

// cappedListener accepts at most cap(slots) connections at once, like
// golang.org/x/net/netutil.LimitListener (a module this one does not
// require directly), and calls shed while a new connection waits for a
// slot.
type cappedListener struct {
	net.Listener
	slots     chan struct{}
	shed      func()
	closed    chan struct{}
	closeOnce sync.Once
}

// capListener returns l accepting at most n connections at once.
func capListener(l net.Listener, n int, shed func()) net.Listener {
	return &cappedListener{Listener: l, slots: make(chan struct{}, n), shed: shed, closed: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection.
func (l *cappedListener) Accept() (net.Conn, error) {
	if !l.acquire() {
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &cappedConn{Conn: c, release: func() { <-l.slots }}, nil
}

// acquire takes a slot; at the cap it sheds idle connections every
// shedInterval until one frees up. It reports false once the listener
// closed.
func (l *cappedListener) acquire() bool {
	for {
		select {
		case l.slots <- struct{}{}:
			return true
		case <-l.closed:
			return false
		default:
		}
		l.shed()
		t := time.NewTimer(shedInterval)
		select {
		case l.slots <- struct{}{}:
			t.Stop()
			return true
		case <-l.closed:
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// Close closes the listener and ends a wait for a slot.
func (l *cappedListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.closed) })
	return err
}

// cappedConn gives its slot back when it closes.
type cappedConn struct {
	net.Conn
	releaseOnce sync.Once
	release     func()
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.releaseOnce.Do(c.release)
	return err
}
