package leakscan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoMarker in an idempotency key asks the echo proxy to refuse the call
// and echo it: "<prefix>-echo-<form>".
const echoMarker = "-echo-"

// parkMarker in an idempotency key asks the echo proxy to answer 503, with
// the request echoed, for the first parkFor after the key's first call:
// longer than the rig's batch deadline, so the command is parked.
const (
	parkMarker = "-park-"
	parkFor    = 3 * time.Second
)

// echoForms is how many ways the echo proxy echoes a request (echoAnswer).
const echoForms = 5

// startEchoProxy starts an HTTP proxy in front of the sandbox at target: an
// API — or a proxy, a WAF in front of it — that echoes the request in its
// errors. Calls whose idempotency key holds echoMarker are refused with an
// invalid_request error that echoes the request body in one of echoForms
// forms; every other call is forwarded, and an error answer of the sandbox
// comes back with the request body appended to its description.
func startEchoProxy(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = echoInErrors
	var mu sync.Mutex
	firstCall := map[string]time.Time{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		key := r.Header.Get("X-PARTNER-IDEMPOTENCY-KEY")
		if _, form, ok := strings.Cut(key, echoMarker); ok {
			n, _ := strconv.Atoi(form)
			code, desc := echoAnswer(n, body)
			writeError(w, code, desc)
			return
		}
		if strings.Contains(key, parkMarker) {
			mu.Lock()
			first, seen := firstCall[key]
			if !seen {
				first = time.Now()
				firstCall[key] = first
			}
			mu.Unlock()
			if time.Since(first) < parkFor {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				b, _ := json.Marshal(map[string]any{"status": "error", "error": map[string]string{"code": "service_unavailable", "description": "busy: " + string(body)}})
				_, _ = w.Write(b)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r = r.WithContext(withRequestBody(r.Context(), body))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

var panRun = regexp.MustCompile(`[0-9]{16}`)

// echoAnswer is the error code and description of echo form n of a request
// body: the body as it is; the card in the rule of "<field>.<rule>",
// grouped by slashes; the body in upper case with the card grouped by dots;
// the body with every digit JSON-escaped; the body as the error code.
func echoAnswer(n int, body []byte) (code, desc string) {
	pan := panRun.Find(body)
	switch n % echoForms {
	case 0:
		return "invalid_request", "bad request: " + string(body)
	case 1:
		return "invalid_request", "payment_details.card.bank_card.number." + grouped(string(pan), "/")
	case 2:
		return "invalid_request", strings.ToUpper(strings.Replace(string(body), string(pan), grouped(string(pan), "."), 1))
	case 3:
		var b strings.Builder
		for _, c := range string(body) {
			if c >= '0' && c <= '9' {
				fmt.Fprintf(&b, `\u%04x`, c)
				continue
			}
			b.WriteRune(c)
		}
		return "invalid_request", "request " + b.String()
	}
	return string(body), "refused"
}

func writeError(w http.ResponseWriter, code, desc string) {
	b, _ := json.Marshal(map[string]any{"status": "error", "error": map[string]string{"code": code, "description": desc}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

// echoInErrors appends the request body to the description of an error
// answer of the sandbox.
func echoInErrors(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	var env struct {
		Status string `json:"status"`
		Error  *struct {
			Code        string `json:"code"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Status == "error" && env.Error != nil {
		env.Error.Description += " request: " + string(requestBody(resp.Request.Context()))
		body, _ = json.Marshal(env)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

type requestBodyKey struct{}

func withRequestBody(ctx context.Context, b []byte) context.Context {
	return context.WithValue(ctx, requestBodyKey{}, b)
}

func requestBody(ctx context.Context) []byte {
	b, _ := ctx.Value(requestBodyKey{}).([]byte)
	return b
}
