package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// statusServer serves doc at /status, as a replica's ops port does.
func statusServer(t *testing.T, doc string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/status" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(doc))
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

const (
	replicaA = `{"instance":"a","build":{"version":"1.2.3","revision":"abc","go_version":"go1"},` +
		`"pipeline":{"in_flight":2,"parked":5,"retrying":1,"partitions":[{"topic":"cmds","partition":0,"lag":7},{"topic":"cmds","partition":1,"last_error":{"offset":9,"kind":"capture","status":"invalid","code":"bad","field":"amount","at":"2026-11-28T19:00:00Z"}}]},` +
		`"session_writer":{"partitions":[{"partition":3,"taken_over_at":"2026-11-28T19:00:00Z","takeover_seconds":1.5},{"partition":4}]},` +
		`"paused":{"refund":{"by":"ops"},"capture":{"by":"ops"}}}`
	replicaB = `{"instance":"b"}`
)

func runStatusCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"status"}, args...), func(string) string { return "" }, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestStatusTable: connector status prints each replica's line and its
// partitions; what a replica does not report shows as "-".
func TestStatusTable(t *testing.T) {
	a, b := statusServer(t, replicaA), statusServer(t, replicaB)
	code, out, errOut := runStatusCmd("-ops", a+","+b)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range [][]string{
		{a, "a", "1.2.3", "2", "1", "5", "capture,refund"},
		{b, "b", "-", "-", "-", "-", "-"},
		{a, "pipeline", "cmds/0", "7", "-", "-"},
		{a, "pipeline", "cmds/1", "-", "-", "capture", "invalid", "bad", "amount", "@9", "2026-11-28T19:00:00Z"},
		{a, "session-writer", "3", "-", "2026-11-28T19:00:00Z", "(1.500s)", "-"},
		{a, "session-writer", "4", "-", "in", "progress", "-"},
	} {
		if !hasRow(out, want) {
			t.Errorf("no row %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, b+"  pipeline") || strings.Contains(out, b+"  session-writer") {
		t.Errorf("partitions listed for a replica reporting none:\n%s", out)
	}
}

// hasRow reports whether a line of out has exactly the fields want.
func hasRow(out string, want []string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		if strings.Join(strings.Fields(line), " ") == strings.Join(want, " ") {
			return true
		}
	}
	return false
}

// TestStatusUnreachable: a replica that does not answer is named on
// stderr and the exit is 1; the others are still shown.
func TestStatusUnreachable(t *testing.T) {
	a, gone := statusServer(t, replicaB), closedAddr(t)
	code, out, errOut := runStatusCmd("-ops", a+","+gone)
	if code != exitFailed || !strings.Contains(errOut, "replica "+gone+":") || !hasRow(out, []string{a, "b", "-", "-", "-", "-", "-"}) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestStatusJSON: -json prints each replica's document as served, on one
// line with its address.
func TestStatusJSON(t *testing.T) {
	b := statusServer(t, replicaB)
	code, out, errOut := runStatusCmd("-json", "-ops", b)
	if want := `{"ops":"` + b + `","status":{"instance":"b"}}` + "\n"; code != exitOK || out != want {
		t.Fatalf("exit %d\ngot  %q\nwant %q\n%s", code, out, want, errOut)
	}
}

// TestStatusUsage: without -ops, status is a usage error naming -ops.
func TestStatusUsage(t *testing.T) {
	if code, _, errOut := runStatusCmd(); code != exitUsage || !strings.Contains(errOut, "-ops: required") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}
