package faults_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

// hookFront stands between the sandbox and the connector's webhook
// endpoint in scenario 11: it forwards every delivery to the default
// project's path and answers the sandbox what the connector answered; with
// a foreign path, every foreignEvery-th delivery goes there first (a
// project A session's webhook posted to project B's path). It keeps every
// delivery for the replays, and every answer other than 200 the connector
// gave a genuine delivery.
type hookFront struct {
	client  *http.Client
	target  string // the default project's webhook URL
	foreign string // project B's webhook URL; "" sends nothing there

	mu       sync.Mutex
	seen     []delivery
	refused  []refusal // answers other than 200 to genuine deliveries
	foreigns int       // deliveries sent to the foreign path first
}

// foreignEvery is how often the front posts a delivery to project B's path
// before its own.
const foreignEvery = 3

func (f *hookFront) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	d := delivery{body: body, sig: req.Header.Get("X-PARTNER-SIGN")}
	f.mu.Lock()
	f.seen = append(f.seen, d)
	foreign := f.foreign != "" && len(f.seen)%foreignEvery == 1
	if foreign {
		f.foreigns++
	}
	f.mu.Unlock()
	if foreign {
		postWebhook(f.client, f.foreign, d)
	}
	code := postWebhook(f.client, f.target, d)
	if code != http.StatusOK {
		f.mu.Lock()
		f.refused = append(f.refused, refusal{code: code, d: d})
		f.mu.Unlock()
	}
	if code == 0 {
		code = http.StatusBadGateway
	}
	w.WriteHeader(code)
}

// deliveries returns what the front forwarded so far.
func (f *hookFront) deliveries() []delivery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]delivery(nil), f.seen...)
}

// refusal is an answer other than 200 (0: none) to a genuine delivery.
type refusal struct {
	code int
	d    delivery
}

// refusals returns the connector's answers other than 200 to genuine
// deliveries.
func (f *hookFront) refusals() []refusal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]refusal(nil), f.refused...)
}

// postWebhook posts d to url as the service does and returns the status
// code, 0 when there was no answer.
func postWebhook(client *http.Client, url string, d delivery) int {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(d.body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PARTNER-SIGN", d.sig)
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// webhookForger signs webhook bodies with the sandbox's service key, as
// only the service can: the forged webhooks of scenario 11 are authentic to
// the connector, and must still publish no event.
type webhookForger struct{ signer *signing.RSASigner }

func newWebhookForger(t testing.TB, s *Sandbox) *webhookForger {
	t.Helper()
	key, err := signing.LoadPrivateKey(filepath.Join(s.KeysDir, paysim.DevServicePrivate))
	if err != nil {
		t.Fatalf("the sandbox's service key: %v", err)
	}
	return &webhookForger{signer: signing.NewRSASigner(key, signing.PKCS1v15)}
}

func (f *webhookForger) sign(t testing.TB, body []byte) delivery {
	t.Helper()
	sig, err := f.signer.Sign(body)
	if err != nil {
		t.Fatalf("sign a webhook: %v", err)
	}
	return delivery{body: body, sig: sig}
}

// reserialized is d's event in other JSON bytes (indented, members in
// another order), signed: the same event, a different body.
func (f *webhookForger) reserialized(t testing.TB, d delivery) delivery {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(d.body))
	dec.UseNumber() // keep every number's text
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("a sandbox webhook is not JSON: %v", err)
	}
	body, err := json.MarshalIndent(v, "", "   ")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(body, d.body) {
		t.Fatal("re-serializing a webhook kept its bytes")
	}
	return f.sign(t, body)
}

// unknownSessionID is a session the connector never created.
const unknownSessionID = "ps_999999"

// ofUnknownSession is d's webhook about unknownSessionID instead, signed.
func (f *webhookForger) ofUnknownSession(t testing.TB, d delivery) delivery {
	t.Helper()
	wh, err := payapi.ParseWebhook(d.body)
	if err != nil {
		t.Fatalf("a sandbox webhook does not parse: %v", err)
	}
	body := bytes.ReplaceAll(d.body, []byte(`"`+wh.Session.ID+`"`), []byte(`"`+unknownSessionID+`"`))
	return f.sign(t, body)
}

// slowBodies is a webhook slow-body flood: conns connections that each
// send a request's headers with a well-formed but false signature and then
// trickle its body a byte at a time; a connection the server cut off is
// opened again, until stop.
type slowBodies struct {
	opened, cut atomic.Int64
	cancel      context.CancelFunc
	wg          sync.WaitGroup
}

// startSlowBodies starts the flood against the webhook endpoint at addr
// and path; stop it with stop.
func startSlowBodies(addr, path string, conns int, pace time.Duration) *slowBodies {
	ctx, cancel := context.WithCancel(context.Background())
	s := &slowBodies{cancel: cancel}
	for range conns {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for ctx.Err() == nil {
				s.one(ctx, addr, path, pace)
			}
		}()
	}
	return s
}

// one holds one connection until the server cuts it off or ctx ends.
func (s *slowBodies) one(ctx context.Context, addr, path string, pace time.Duration) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		select { // the listener's backlog is full: try again shortly
		case <-ctx.Done():
		case <-time.After(pace):
		}
		return
	}
	defer conn.Close()
	s.opened.Add(1)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	var sig [256]byte // the length of a 2048-bit RSA signature, random
	_, _ = rand.Read(sig[:])
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n"+
		"X-PARTNER-SIGN: %s\r\n\r\n{", path, addr, base64.StdEncoding.EncodeToString(sig[:]))
	if _, err := io.WriteString(conn, head); err != nil {
		return
	}
	answered := make(chan struct{}) // the server answered or closed: it cut the request off
	go func() {
		defer close(answered)
		_, _ = conn.Read(make([]byte, 512))
	}()
	tick := time.NewTicker(pace)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-answered:
			s.cut.Add(1)
			return
		case <-tick.C: // the trickle's pace
		}
		if _, err := conn.Write([]byte(" ")); err != nil {
			s.cut.Add(1)
			return
		}
	}
}

// stop ends the flood and returns how many connections it opened and how
// many the server cut off.
func (s *slowBodies) stop() (opened, cut int64) {
	s.cancel()
	s.wg.Wait()
	return s.opened.Load(), s.cut.Load()
}
