package ingress

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// ServeHTTP answers one webhook delivery. Every 4xx publishes nothing; 200
// means Kafka acknowledged every record of the webhook (or did so for an
// earlier delivery of the same event), or that the webhook binds to no
// session of the connector's and publishes nothing (binding.go); 503 asks
// the service to retry.
//
// Everything that can be judged from the request line and headers (path,
// method, content type, the shape of X-PARTNER-SIGN) is judged before the
// body is read, so traffic that will be refused costs neither memory nor a
// body read. The body is then read within BodyTimeout and verified, and
// only a verified webhook takes one of the MaxInFlight slots for its
// publish: a client without the service's key, however slow, never holds
// one.
func (in *Ingress) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ctx, span := startSpan(r); span.IsRecording() {
		defer span.End()
		w, r = spanWriter{ResponseWriter: w, span: span}, r.WithContext(ctx)
	}
	sig, project, code, verdict := in.precheck(r)
	if code != 0 {
		in.reject(w, code, "none", verdict)
		return
	}
	if in.isStopping() {
		in.reject(w, http.StatusServiceUnavailable, "none", verdictUnavailable)
		return
	}
	if !in.holdBody() {
		w.Header().Set("Retry-After", retryAfterOverloaded)
		in.reject(w, http.StatusServiceUnavailable, "none", verdictOverloaded)
		return
	}
	defer in.dropBody()
	body, code, verdict := in.readBody(w, r)
	if code != 0 {
		in.reject(w, code, "none", verdict)
		return
	}
	if err := in.cfg.Verifier.Verify(body, sig); err != nil {
		in.cfg.Logger.WarnContext(r.Context(), "webhook signature rejected", slog.String("remote", r.RemoteAddr), slog.Any("error", err))
		in.reject(w, http.StatusUnauthorized, "none", verdictBadSignature)
		return
	}
	wh, err := parse(body, in.cfg.DefaultAPIVersion)
	if err != nil {
		in.cfg.Logger.WarnContext(r.Context(), "webhook malformed", slog.Any("error", err))
		in.reject(w, http.StatusBadRequest, "none", verdictMalformed)
		return
	}
	for _, f := range wh.DroppedFields {
		in.cfg.Logger.DebugContext(r.Context(), "webhook time field unreadable; left unset", slog.String("session_id", wh.Session.ID),
			slog.String("field", f))
	}
	if wh.Project, code, verdict = in.bind(r.Context(), wh, project); code != 0 {
		if code == http.StatusServiceUnavailable && verdict == verdictOverloaded {
			w.Header().Set("Retry-After", retryAfterOverloaded)
		}
		in.reject(w, code, typeLabel(wh.Type), verdict)
		return
	}
	switch in.enter(r.Context()) {
	case entered:
	case overloaded:
		w.Header().Set("Retry-After", retryAfterOverloaded)
		in.reject(w, http.StatusServiceUnavailable, typeLabel(wh.Type), verdictOverloaded)
		return
	default:
		in.reject(w, http.StatusServiceUnavailable, typeLabel(wh.Type), verdictUnavailable)
		return
	}
	defer in.leave()
	in.accept(w, r, wh, eventID(wh.Type, &wh.Session))
}

// readBody reads the body, at most MaxBodyBytes, within BodyTimeout, and
// returns it, or the status and verdict of the refusal. The deadline is the
// connection's (a client that stops sending is cut off in the kernel's
// read, not after the fact). It is lifted once the body is in, as the
// server's watch of the idle connection would otherwise take it for the
// client leaving and end the request while it waits for Kafka; after a
// refusal it stays, so that the server, discarding the rest of the body
// before its answer, gives up at once and closes the connection. Without a
// connection (a ResponseWriter that cannot set deadlines) the server's
// ReadTimeout alone bounds the read.
func (in *Ingress) readBody(w http.ResponseWriter, r *http.Request) (body []byte, code int, verdict string) {
	rc := http.NewResponseController(unwrap(w))
	// A network deadline runs on the wall clock, not on cfg.Now.
	deadline := rc.SetReadDeadline(time.Now().Add(in.cfg.BodyTimeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(unwrap(w), r.Body, in.cfg.MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		if deadline {
			_ = rc.SetReadDeadline(time.Time{})
		}
		return body, 0, ""
	case errors.As(err, &tooLarge):
		return nil, http.StatusRequestEntityTooLarge, verdictTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		in.cfg.Logger.DebugContext(r.Context(), "webhook body not sent in time", slog.String("remote", r.RemoteAddr),
			slog.Duration("body_timeout", in.cfg.BodyTimeout))
		return nil, http.StatusRequestTimeout, verdictBodyTimeout
	default:
		return nil, http.StatusBadRequest, verdictMalformed
	}
}

// precheck checks path, method, content type and the signature header's
// shape before the body is read, and returns the signature and the project
// the path names (nil: the default project).
func (in *Ingress) precheck(r *http.Request) (sig string, project *string, code int, verdict string) {
	project, ok := in.paths[r.URL.Path]
	if !ok {
		return "", nil, http.StatusNotFound, verdictNotFound
	}
	if r.Method != http.MethodPost {
		return "", nil, http.StatusMethodNotAllowed, verdictBadMethod
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return "", nil, http.StatusUnsupportedMediaType, verdictBadContentType
	}
	sig, err = signatureShape(r.Header)
	if err != nil {
		// Debug only: unsigned traffic is counted by the requests metric,
		// and a flood of it must not flood the log too.
		in.cfg.Logger.DebugContext(r.Context(), "webhook refused before its body", slog.String("remote", r.RemoteAddr), slog.Any("error", err))
		return "", nil, http.StatusUnauthorized, verdictBadSignature
	}
	return sig, project, 0, ""
}

// accept publishes a verified webhook, or waits for an earlier delivery of
// the same body, and answers once Kafka has spoken or the wait timed out.
func (in *Ingress) accept(w http.ResponseWriter, r *http.Request, wh *webhook, eventID string) {
	log := in.cfg.Logger.With(slog.String("event_id", eventID), slog.String("session_id", wh.Session.ID),
		slog.String("type", wh.Type))
	ctx := r.Context()
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.String("paysession.session_id", wh.Session.ID))
	}
	received := in.cfg.Now()
	d, _ := in.deliveries.GetOrAdd(eventID, received, func() *delivery { return &delivery{eventID: eventID} })
	a, err := in.publish(r.Context(), d, wh, eventID, received)
	if err != nil {
		log.ErrorContext(ctx, "webhook records not built", slog.Any("error", err))
		in.reject(w, http.StatusServiceUnavailable, typeLabel(wh.Type), verdictUnavailable)
		return
	}
	if a == nil {
		log.InfoContext(ctx, "webhook duplicate, already published")
		in.answer(w, http.StatusOK, typeLabel(wh.Type), verdictDuplicate)
		return
	}
	if err := in.wait(r.Context(), a); err != nil {
		log.WarnContext(ctx, "webhook not published, asking for redelivery", slog.Any("error", err))
		in.reject(w, http.StatusServiceUnavailable, typeLabel(wh.Type), verdictUnavailable)
		return
	}
	d.release()
	log.InfoContext(ctx, "webhook published")
	in.answer(w, http.StatusOK, typeLabel(wh.Type), verdictAccepted)
}

// publish builds d's update record on first sight and starts producing it,
// or returns the attempt already running. A nil attempt means the record
// was already published.
func (in *Ingress) publish(ctx context.Context, d *delivery, wh *webhook, eventID string, received time.Time) (*attempt, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.settle()
	if d.published {
		return nil, nil
	}
	if d.current != nil && !d.current.finished() {
		return d.current, nil
	}
	if !d.built {
		bctx, cancel := context.WithTimeout(ctx, in.cfg.PublishTimeout)
		rec, err := in.build(bctx, wh, eventID, received)
		cancel()
		if err != nil {
			return nil, err
		}
		d.record, d.built = rec, true
	}
	d.current = in.startAttempt(d)
	return d.current, nil
}

func (in *Ingress) reject(w http.ResponseWriter, code int, typ, verdict string) {
	if code == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	in.answer(w, code, typ, verdict)
}

func (in *Ingress) answer(w http.ResponseWriter, code int, typ, verdict string) {
	if sw, ok := w.(spanWriter); ok {
		noteVerdict(trace.ContextWithSpan(context.Background(), sw.span), typ, verdict)
	}
	in.metrics.requests.WithLabelValues(typ, verdict).Inc()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	io.WriteString(w, http.StatusText(code)+"\n")
}
