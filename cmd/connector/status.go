package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/pipeline"
)

// runStatus is `connector status -ops host:port[,host:port...]`: each
// replica's GET /status on its ops port, as tables (or -json, one line per
// replica with its document as served). A replica that cannot be read is
// named on stderr and the exit is 1, after the others are shown.
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newCmdLine("status", "", "Prints, from the ops port of each replica named by -ops, its partitions, lag, in-flight calls, takeovers, pause and build.", 0, 0)
	ops := fs.String("ops", "", "the replicas' ops addresses (PAYSESSION_METRICS_LISTEN_ADDR), host:port, comma-separated")
	asJSON := fs.Bool("json", false, "print each replica's document as served, one JSON line per replica")
	timeout := fs.Duration("timeout", 5*time.Second, "give up on a replica after this long")
	if _, code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	var addrs []string
	for a := range strings.SplitSeq(*ops, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		return fs.fail(stderr, "-ops: required, the replicas' ops addresses")
	}
	code := exitOK
	var replicas []replicaStatus
	for _, addr := range addrs {
		raw, err := fetchStatus(ctx, addr, *timeout)
		if err == nil {
			var doc connector.Status
			if err = json.Unmarshal(raw, &doc); err == nil {
				replicas = append(replicas, replicaStatus{addr: addr, raw: raw, doc: doc})
				continue
			}
		}
		fmt.Fprintf(stderr, "connector status: replica %s: %v\n", addr, err)
		code = exitFailed
	}
	if *asJSON {
		for _, r := range replicas {
			var line bytes.Buffer
			if err := json.Compact(&line, r.raw); err != nil {
				return exitFailed
			}
			fmt.Fprintf(stdout, `{"ops":%q,"status":%s}`+"\n", r.addr, line.Bytes())
		}
		return code
	}
	printStatus(stdout, replicas)
	return code
}

// replicaStatus is one replica's document, as served and decoded.
type replicaStatus struct {
	addr string
	raw  []byte
	doc  connector.Status
}

// fetchStatus returns the body of GET http://addr/status.
func fetchStatus(ctx context.Context, addr string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/status", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /status: %s", resp.Status)
	}
	return body, nil
}

// printStatus writes a table of the replicas, then one of their
// partitions. A value a replica does not report is "-".
func printStatus(w io.Writer, replicas []replicaStatus) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPLICA\tINSTANCE\tVERSION\tIN-FLIGHT\tRETRYING\tPARKED\tPAUSED")
	for _, r := range replicas {
		version, inFlight, retrying, parked := "-", "-", "-", "-"
		if b := r.doc.Build; b != nil {
			version = b.Version
		}
		if p := r.doc.Pipeline; p != nil {
			inFlight, parked = strconv.Itoa(p.InFlight), strconv.FormatInt(p.Parked, 10)
			retrying = strconv.FormatInt(p.Retrying, 10)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.addr, r.doc.Instance, version, inFlight, retrying, parked,
			pausedText(r.doc.Paused))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "REPLICA\tPART\tPARTITION\tLAG\tTAKEN OVER\tLAST ERROR")
	for _, r := range replicas {
		if p := r.doc.Pipeline; p != nil {
			for _, ps := range p.Partitions {
				lag := "-"
				if ps.Lag != nil {
					lag = strconv.FormatInt(*ps.Lag, 10)
				}
				fmt.Fprintf(tw, "%s\tpipeline\t%s/%d\t%s\t-\t%s\n", r.addr, ps.Topic, ps.Partition, lag, lastErrorText(ps.LastError))
			}
		}
		if sw := r.doc.SessionWriter; sw != nil {
			for _, ps := range sw.Partitions {
				taken := "in progress"
				if ps.TakenOverAt != nil {
					taken = ps.TakenOverAt.UTC().Format(time.RFC3339)
					if ps.TakeoverSeconds != nil {
						taken += fmt.Sprintf(" (%.3fs)", *ps.TakeoverSeconds)
					}
				}
				fmt.Fprintf(tw, "%s\tsession-writer\t%d\t-\t%s\t-\n", r.addr, ps.Partition, taken)
			}
		}
	}
	_ = tw.Flush()
}

// lastErrorText is a partition's last error as the table shows it: kind,
// status, code and field, then offset and time; "-" when none.
func lastErrorText(e *pipeline.CommandError) string {
	if e == nil {
		return "-"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", e.Kind, e.Status)
	for _, s := range []string{e.Code, e.Field} {
		if s != "" {
			b.WriteString(" " + s)
		}
	}
	fmt.Fprintf(&b, " @%d %s", e.Offset, e.At.UTC().Format(time.RFC3339))
	return b.String()
}

// pausedText is the pause as the table shows it: the paused kinds in
// order, the reason it is unknown, or "-" when nothing is paused.
func pausedText(p any) string {
	switch v := p.(type) {
	case nil:
		return "-"
	case string:
		return v
	case map[string]any:
		kinds := make([]string, 0, len(v))
		for k := range v {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		return strings.Join(kinds, ",")
	}
	return fmt.Sprint(p)
}
