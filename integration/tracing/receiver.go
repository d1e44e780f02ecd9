package tracing

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, flattened for assertions.
type Span struct {
	Name, TraceID, SpanID, ParentID string
	Attrs                           map[string]string
	Links                           []Link
}

// Link is a span's link to another span.
type Link struct{ TraceID, SpanID string }

// Receiver is an OTLP/HTTP trace receiver: POST /v1/traces with a
// protobuf ExportTraceServiceRequest (gzip or not), as the SDK's
// otlptracehttp exporter sends it.
type Receiver struct {
	srv *http.Server
	ln  net.Listener

	mu    sync.Mutex
	spans []Span
}

// StartReceiver listens on a loopback port.
func StartReceiver() (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Receiver{ln: ln}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.export)
	r.srv = &http.Server{Handler: mux}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// URL is the endpoint for OTEL_EXPORTER_OTLP_ENDPOINT.
func (r *Receiver) URL() string { return "http://" + r.ln.Addr().String() }

// Close stops the receiver.
func (r *Receiver) Close() error { return r.srv.Close() }

// Spans returns every span received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

func (r *Receiver) export(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = z
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Span
	for _, rs := range msg.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				got = append(got, flatten(s))
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func flatten(s *tracepb.Span) Span {
	sp := Span{Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
		ParentID: hex.EncodeToString(s.GetParentSpanId()), Attrs: map[string]string{}}
	for _, a := range s.GetAttributes() {
		switch v := a.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			sp.Attrs[a.GetKey()] = v.StringValue
		case *commonpb.AnyValue_BoolValue:
			sp.Attrs[a.GetKey()] = strconv.FormatBool(v.BoolValue)
		case *commonpb.AnyValue_IntValue:
			sp.Attrs[a.GetKey()] = strconv.FormatInt(v.IntValue, 10)
		}
	}
	for _, l := range s.GetLinks() {
		sp.Links = append(sp.Links, Link{TraceID: hex.EncodeToString(l.GetTraceId()), SpanID: hex.EncodeToString(l.GetSpanId())})
	}
	return sp
}
