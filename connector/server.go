package connector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// HTTPServer is an http.Server as a part with Run(ctx): it serves until ctx
// ends, then shuts down gracefully within Grace (in-flight requests are
// answered, new connections refused).
type HTTPServer struct {
	Name     string
	Listener net.Listener
	Handler  http.Handler
	Grace    time.Duration
	Logger   *slog.Logger
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
	srv := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.Listener) }()
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
