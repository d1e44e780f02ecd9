package payapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/signing"
	"github.com/paysession/paysession/internal/tracing"
)

// endpoint is one method of the API.
type endpoint struct {
	path   string // e.g. "session/capture"
	get    bool   // fps/banks is a GET with an empty JSON object body
	v1Only bool   // shown only under /api/v1
	// needsSession: an ok response without a session is malformed (the
	// session is the method's only result); other session methods return
	// a nil session then.
	needsSession bool
}

// Request headers.
const (
	HeaderProject     = "X-PARTNER-PROJECT"
	HeaderSign        = "X-PARTNER-SIGN"
	HeaderSubmerchant = "X-PARTNER-SUBMERCHANT"
	HeaderIdempotency = "X-PARTNER-IDEMPOTENCY-KEY"
)

// versionFor returns the API version a call of ep uses.
func (c *Client) versionFor(ep endpoint) int {
	if ep.v1Only {
		return 1
	}
	return c.version
}

// call serializes payload once, signs exactly those bytes, sends them and
// returns the parsed ok envelope. Every error is a *Error.
func (c *Client) call(ctx context.Context, ep endpoint, payload any, opts []CallOption) (*envelope, error) {
	o := collectOptions(opts)
	if err := checkHeaderValues(ep, &o); err != nil {
		return nil, err
	}
	if o.hasKey {
		if err := ValidIdempotencyKey(o.idempotencyKey); err != nil {
			return nil, &Error{Code: CodeInvalidIdempotencyKey, Endpoint: ep.path, Description: err.Error()}
		}
	}
	signer, err := c.signerFor(ep, &o)
	if err != nil {
		return nil, err
	}
	body, err := encodeBody(payload)
	if err != nil {
		return nil, &Error{Code: CodeInvalidArgument, Endpoint: ep.path, Description: "request cannot be serialized", Err: err}
	}
	sig, err := signer.Sign(body)
	if err != nil {
		return nil, &Error{Code: CodeSigning, Endpoint: ep.path, Description: "request cannot be signed", Err: err}
	}
	start := time.Now()
	var span trace.Span
	if tracing.Enabled() {
		ctx, span = tracing.Tracer("github.com/paysession/paysession/internal/payapi").Start(ctx, "payapi "+ep.path,
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("paysession.endpoint", ep.path), attribute.Int("paysession.api_version", c.versionFor(ep))))
	}
	env, err := c.roundTrip(ctx, ep, body, sig, o)
	endCallSpan(span, err)
	c.logCall(ctx, ep, start, err)
	return env, err
}

// signerFor returns the key of the call's project, filling in the default
// project and submerchant.
func (c *Client) signerFor(ep endpoint, o *callOptions) (signing.Signer, error) {
	if o.project == "" {
		o.project = c.project
	}
	if o.submerchant == "" {
		o.submerchant = c.submerchant
	}
	s, ok := c.signers[o.project]
	if !ok {
		return nil, &Error{Code: CodeUnknownProject, Endpoint: ep.path, Field: "project", Rule: "unknown",
			Description: "no key is configured for the project the call names"}
	}
	return s, nil
}

// encodeBody serializes a request once; '<', '>' and '&' are written as is
// (the bytes are signed as written, so readability costs nothing).
func encodeBody(payload any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(payload); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (c *Client) newRequest(ctx context.Context, ep endpoint, body []byte, sig string, o callOptions) (*http.Request, error) {
	method := http.MethodPost
	if ep.get {
		method = http.MethodGet
	}
	u := c.base + "/api/v" + strconv.Itoa(c.versionFor(ep)) + "/" + ep.path
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set(HeaderProject, o.project)
	req.Header.Set(HeaderSign, sig)
	if o.submerchant != "" {
		req.Header.Set(HeaderSubmerchant, o.submerchant)
	}
	if o.hasKey {
		req.Header.Set(HeaderIdempotency, o.idempotencyKey)
	}
	if o.traceparent != "" {
		req.Header.Set(HeaderTraceParent, o.traceparent)
		if o.tracestate != "" {
			req.Header.Set(HeaderTraceState, o.tracestate)
		}
	}
	return req, nil
}

func (c *Client) roundTrip(ctx context.Context, ep endpoint, body []byte, sig string, o callOptions) (*envelope, error) {
	var traced, wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn:      func(string) { traced.Store(true) },
		WroteHeaders: func() { wrote.Store(true) },
	})
	req, err := c.newRequest(ctx, ep, body, sig, o)
	if err != nil {
		return nil, &Error{Code: CodeInvalidArgument, Endpoint: ep.path, Description: "request cannot be built", Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, transportError(ctx, ep, 0, false, err) // nothing was attempted
	}
	resp, err := c.http.Do(req)
	if err != nil {
		sent := wrote.Load() || (!traced.Load() && !isDialError(err))
		return nil, transportError(ctx, ep, 0, sent, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, transportError(ctx, ep, resp.StatusCode, true, err)
	}
	if int64(len(data)) > c.maxBody {
		return nil, malformed(ep.path, resp.StatusCode, "response body exceeds %d bytes", c.maxBody)
	}
	return parseEnvelope(ep.path, resp.StatusCode, resp.Header, data, c.now())
}

// transportError classifies a failure without a complete response: always
// retryable; Code timeout for deadlines, transport otherwise.
func transportError(ctx context.Context, ep endpoint, status int, sent bool, err error) *Error {
	e := &Error{Code: CodeTransport, Endpoint: ep.path, HTTPStatus: status, Retryable: true, Sent: sent, Err: err}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()) {
		e.Code = CodeTimeout
	}
	return e
}

// isDialError reports a failure to connect, which proves nothing was sent.
func isDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

func (c *Client) logCall(ctx context.Context, ep endpoint, start time.Time, err error) {
	attrs := []slog.Attr{
		slog.String("endpoint", ep.path),
		slog.Int("api_version", c.versionFor(ep)),
		slog.Duration("duration", time.Since(start)),
	}
	var e *Error
	if errors.As(err, &e) {
		attrs = append(attrs, slog.String("code", e.Code), slog.Int("http_status", e.HTTPStatus),
			slog.Bool("retryable", e.Retryable), slog.Bool("sent", e.Sent))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "payapi call", attrs...)
}

// endCallSpan ends an attempt's span with its outcome: "ok" or the error
// code, the HTTP status, and whether it may be retried or may have reached
// the service. Never a body or a header value.
func endCallSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	if !span.IsRecording() {
		span.End()
		return
	}
	defer span.End()
	var e *Error
	if !errors.As(err, &e) {
		span.SetAttributes(attribute.String("paysession.outcome", "ok"))
		return
	}
	span.SetAttributes(attribute.String("paysession.outcome", e.Code), attribute.Int("http.response.status_code", e.HTTPStatus),
		attribute.Bool("paysession.retryable", e.Retryable), attribute.Bool("paysession.sent", e.Sent))
	span.SetStatus(codes.Error, e.Code)
}
