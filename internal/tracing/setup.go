package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// DefaultServiceName is service.name when OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name none.
const DefaultServiceName = "paysession-connector"

// Env is how Setup reads the environment (os.Getenv in production).
type Env func(string) string

// Exporter returns whether the environment configures a trace exporter,
// or an error naming the variable whose value the connector cannot honour.
func Exporter(env Env) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(env("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	switch v := strings.ToLower(strings.TrimSpace(env("OTEL_TRACES_EXPORTER"))); v {
	case "none":
		return false, nil
	case "otlp":
	case "":
		if env("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
			return false, nil
		}
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER: %q is not supported (otlp or none)", v)
	}
	proto := env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = env("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto != "" && proto != "http/protobuf" {
		return false, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: %q is not supported (http/protobuf)", proto)
	}
	return true, nil
}

var (
	mu       sync.Mutex
	users    int
	sdk      *sdktrace.TracerProvider
	provider atomic.Pointer[trace.TracerProvider]
)

// Setup starts the process's tracer provider when the environment
// configures an exporter (see Exporter), exporting over OTLP/HTTP as the
// OTEL_EXPORTER_OTLP_* variables say; sampling (OTEL_TRACES_SAMPLER), the
// batch processor (OTEL_BSP_*) and the resource (OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES) follow their variables too. Connectors of one
// process share the provider: each Setup is matched by one call of the
// shutdown it returns, and the last one flushes and stops the provider.
// Without an exporter Setup changes nothing and its shutdown does nothing.
func Setup(ctx context.Context, env Env, log *slog.Logger) (shutdown func(context.Context) error, err error) {
	if env == nil {
		env = os.Getenv
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	on, err := Exporter(env)
	if err != nil || !on {
		return func(context.Context) error { return nil }, err
	}
	mu.Lock()
	defer mu.Unlock()
	if users == 0 {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("otlp trace exporter: %w", err)
		}
		res, err := resource.Merge(resource.NewSchemaless(attribute.String("service.name", DefaultServiceName)), resource.Environment())
		if err != nil {
			return nil, fmt.Errorf("trace resource: %w", err)
		}
		sdk = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			log.Warn("tracing: span export failed", slog.Any("error", err))
		}))
		var tp trace.TracerProvider = sdk
		provider.Store(&tp)
		log.Info("tracing on: spans are exported over OTLP/HTTP")
	}
	users++
	var once sync.Once
	return func(ctx context.Context) error {
		var err error
		once.Do(func() { err = release(ctx) })
		return err
	}, nil
}

func release(ctx context.Context) error {
	mu.Lock()
	defer mu.Unlock()
	users--
	if users > 0 {
		return nil
	}
	provider.Store(nil)
	s := sdk
	sdk = nil
	return errors.Join(s.ForceFlush(ctx), s.Shutdown(ctx))
}

// Use makes tp the provider of Tracer until the returned function is
// called (tests use an in-memory one).
func Use(tp trace.TracerProvider) (restore func()) {
	prev := provider.Swap(&tp)
	return func() { provider.Store(prev) }
}

// Enabled reports whether spans are being recorded and exported.
func Enabled() bool { return provider.Load() != nil }

// Provider returns the tracer provider in use (a no-op one when off).
func Provider() trace.TracerProvider {
	if p := provider.Load(); p != nil {
		return *p
	}
	return noop.NewTracerProvider()
}

// Tracer returns the tracer of a part of the connector (named after its
// package), a no-op one while tracing is off.
func Tracer(name string) trace.Tracer {
	if p := provider.Load(); p != nil {
		return (*p).Tracer(name)
	}
	return noop.Tracer{}
}
