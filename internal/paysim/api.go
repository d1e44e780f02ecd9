package paysim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// call is one API request being executed.
type call struct {
	s         *Server
	version   int
	method    string
	project   *projectState
	sub       string
	key       string
	body      fields
	now       time.Time
	baseURL   string
	sessionID string   // session the call names or created (execution log)
	after     []func() // processing queued once the response is written
}

// later queues fn as asynchronous processing after the response.
func (c *call) later(fn func()) { c.after = append(c.after, fn) }

type handlerFunc func(c *call) (map[string]any, error)

type route struct {
	fn         handlerFunc
	v1Only     bool
	get        bool // fps/banks is a GET with an empty JSON object body
	idempotent bool // accepts X-PARTNER-IDEMPOTENCY-KEY
}

// apiRoutes lists every method of the spec. Read-only methods do not take an
// idempotency key: session/status, fps/banks, token/info, wallet/balance.
func (s *Server) apiRoutes() map[string]route {
	return map[string]route{
		"session/create":            {fn: s.createSession, idempotent: true},
		"session/init/payment":      {fn: s.initPayment, idempotent: true},
		"session/init/payout":       {fn: s.initPayout, idempotent: true},
		"session/start/payment":     {fn: s.startPayment, idempotent: true},
		"session/start/payout":      {fn: s.startPayout, idempotent: true},
		"session/confirm":           {fn: s.confirm, idempotent: true},
		"session/cancel":            {fn: s.cancel, idempotent: true},
		"session/capture":           {fn: s.capture, idempotent: true},
		"session/refund":            {fn: s.refund, idempotent: true},
		"session/status":            {fn: s.status},
		"fps/customer_verification": {fn: s.fpsVerification, idempotent: true},
		"fps/banks":                 {fn: s.fpsBanks, v1Only: true, get: true},
		"recurrent/disable":         {fn: s.disableRecurrent, v1Only: true, idempotent: true},
		"token":                     {fn: s.publicTokenCreate, v1Only: true, idempotent: true},
		"tokenize/elements":         {fn: s.tokenizeElements, v1Only: true, idempotent: true},
		"token/info":                {fn: s.tokenInfo, v1Only: true},
		"wallet/balance":            {fn: s.walletBalance, v1Only: true},
		"bankpay/push":              {fn: s.bankPayPush, v1Only: true, idempotent: true},
	}
}

func (s *Server) routes() http.Handler {
	api := s.apiRoutes()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) { s.serveAPI(w, r, api) })
	s.adminRoutes(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{HTTP: http.StatusNotFound, Code: CodeNotFound, Description: "path.unknown"})
	})
	return mux
}

func parsePath(p string) (int, string, bool) {
	switch {
	case strings.HasPrefix(p, "/api/v1/"):
		return 1, p[len("/api/v1/"):], true
	case strings.HasPrefix(p, "/api/v2/"):
		return 2, p[len("/api/v2/"):], true
	}
	return 0, "", false
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, api map[string]route) {
	version, method, ok := parsePath(r.URL.Path)
	rt, known := api[method]
	if !ok || !known || (rt.v1Only && version != 1) {
		writeError(w, &apiError{HTTP: http.StatusNotFound, Code: CodeNotFound, Description: "path.unknown"})
		return
	}
	if want := map[bool]string{true: http.MethodGet, false: http.MethodPost}[rt.get]; r.Method != want {
		w.Header().Set("Allow", want)
		writeError(w, &apiError{HTTP: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Description: "method.inclusion"})
		return
	}
	c, err := s.admit(w, r, version, method, rt)
	if err != nil {
		writeError(w, err)
		return
	}
	faults := s.Faults()
	if s.dice.chance(faults.ErrorRate) {
		writeError(w, &apiError{HTTP: http.StatusInternalServerError, Code: CodeInternal, Description: "internal error"})
		return
	}
	s.execute(w, r, c, rt, faults)
}

// admit reads the body and checks headers, signature, JSON and version naming.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, version int, method string, rt route) (*call, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &apiError{HTTP: http.StatusRequestEntityTooLarge, Code: CodeInvalidRequest, Description: "body.too_large"}
		}
		return nil, invalid("body", "unreadable")
	}
	p, err := s.authenticate(r, raw)
	if err != nil {
		return nil, err
	}
	c := &call{s: s, version: version, method: method, project: p, sub: r.Header.Get(HeaderSubmerchant),
		key: r.Header.Get(HeaderIdempotency), baseURL: s.baseURL(r)}
	if c.key != "" {
		if !rt.idempotent {
			return nil, &apiError{HTTP: http.StatusBadRequest, Code: CodeIdempotencyNotSupport, Description: "headers." + HeaderIdempotency + ".not_supported"}
		}
		if err := checkIdempotencyKey(c.key); err != nil {
			return nil, err
		}
	}
	body, err := decodeObject(raw, rt.get)
	if err != nil {
		return nil, err
	}
	if err := checkMixedVersion(version, body); err != nil {
		return nil, err
	}
	c.body = fields{m: body}
	return c, nil
}

func decodeObject(raw []byte, emptyOK bool) (map[string]any, error) {
	if emptyOK && len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil || body == nil || dec.More() {
		return nil, invalid("body", "invalid_json")
	}
	return body, nil
}

// execute runs the call once per idempotency key and writes its response.
func (s *Server) execute(w http.ResponseWriter, r *http.Request, c *call, rt route, faults Faults) {
	var entry *idemEntry
	if c.key != "" {
		canon, _ := json.Marshal(c.body.m)
		fp := sha256.Sum256(append([]byte(c.method+"\x00"+c.sub+"\x00"+string(rune('0'+c.version))+"\x00"), canon...))
		e, res, err := s.idem.begin(s.Now(), c.project.ID+"\x00"+c.key, fp)
		if err != nil {
			writeError(w, err)
			return
		}
		if res != nil {
			w.Header().Set("Idempotent-Replayed", "true")
			writeRaw(w, res.status, res.body)
			return
		}
		entry = e
	}
	c.sessionID, _ = c.body.m["session_id"].(string)
	ex := s.execs.begin(c.method, c.version, c.project.ID, c.sub, c.sessionID, c.key)
	if lat := faults.latency(s.dice); lat > 0 {
		sleep(r.Context(), lat)
	}
	s.mu.Lock()
	c.now = s.Now()
	result, err := rt.fn(c)
	s.mu.Unlock()
	status, body := encodeResult(result, err)
	s.execs.end(ex, c.sessionID, codeOf(err))
	if entry != nil {
		s.idem.finish(entry, status, body)
	}
	if s.dice.chance(faults.DropRate) {
		s.queueAfter(c)
		dropConnection(w)
		return
	}
	writeRaw(w, status, body)
	s.queueAfter(c)
}

func (s *Server) queueAfter(c *call) {
	for _, fn := range c.after {
		s.q.after(s.cfg.ProcessingDelay, fn)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func codeOf(err error) string {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Code
	}
	if err != nil {
		return CodeInternal
	}
	return "ok"
}

func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// dropConnection closes the connection without an HTTP response.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

func encodeResult(result map[string]any, err error) (int, []byte) {
	if err != nil {
		var ae *apiError
		if !errors.As(err, &ae) {
			ae = &apiError{HTTP: http.StatusInternalServerError, Code: CodeInternal, Description: "internal error"}
		}
		b, _ := json.Marshal(map[string]any{"status": "error", "error": map[string]string{"code": ae.Code, "description": ae.Description}})
		return ae.HTTP, b
	}
	if result == nil {
		result = map[string]any{}
	}
	result["status"] = "ok"
	b, merr := json.Marshal(result)
	if merr != nil {
		return encodeResult(nil, merr)
	}
	return http.StatusOK, b
}

func writeError(w http.ResponseWriter, err error) {
	status, body := encodeResult(nil, err)
	writeRaw(w, status, body)
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client went away: nothing to do
}
