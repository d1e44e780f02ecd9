package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// segments split each command's latency (produce call → result readable)
// into: command_acked (produce call → the broker acknowledged the command:
// upstream's part), result_produced (→ the connector produced the result:
// waiting to be fetched, the API calls) and result_readable (→ readable
// with read_committed: flush, commit, fetch).
type segments struct {
	sent                             []time.Time
	total, acked, produced, readable []time.Duration
}

// splitLatency computes the segments of each key from when it was sent,
// acknowledged, its result produced and its result readable.
func splitLatency(keys []string, sent []time.Time, acked, producedAt, arrived map[string]time.Time) segments {
	n := len(keys)
	s := segments{sent: sent, total: make([]time.Duration, n), acked: make([]time.Duration, n),
		produced: make([]time.Duration, n), readable: make([]time.Duration, n)}
	for i, k := range keys {
		s.total[i] = arrived[k].Sub(sent[i])
		s.acked[i] = acked[k].Sub(sent[i])
		s.produced[i] = producedAt[k].Sub(acked[k])
		s.readable[i] = arrived[k].Sub(producedAt[k])
	}
	return s
}

// join returns s followed by t (another slice of the same side).
func (s segments) join(t segments) segments {
	return segments{sent: append(s.sent, t.sent...), total: append(s.total, t.total...),
		acked: append(s.acked, t.acked...), produced: append(s.produced, t.produced...),
		readable: append(s.readable, t.readable...)}
}

// window spans a slice: from its first command's send to its last result.
func (s segments) window() window {
	var w window
	for i, sent := range s.sent {
		if w.from.IsZero() || sent.Before(w.from) {
			w.from = sent
		}
		if end := sent.Add(s.total[i]); end.After(w.to) {
			w.to = end
		}
	}
	return w
}

// outside returns s without the commands in flight (sent, not yet
// readable) while the broker was paused, and how many it left out.
func (s segments) outside(pauses []gcPause) (segments, int) {
	var out segments
	left := 0
	for i, sent := range s.sent {
		if slices.ContainsFunc(pauses, func(p gcPause) bool { return p.overlaps(sent, sent.Add(s.total[i])) }) {
			left++
			continue
		}
		out.sent, out.total = append(out.sent, sent), append(out.total, s.total[i])
		out.acked, out.produced, out.readable = append(out.acked, s.acked[i]), append(out.produced, s.produced[i]), append(out.readable, s.readable[i])
	}
	return out, left
}

// run is the total latency's p50, p99 and maximum.
func (s segments) run() PacedRun {
	return PacedRun{P50MS: ms(percentile(s.total, 50)), P99MS: ms(percentile(s.total, 99)), MaxMS: ms(percentile(s.total, 100))}
}

// writeCSV writes one line per command: when it was sent (Unix µs) and its
// latency and segments in milliseconds, in send order.
func (s segments) writeCSV(path string) error {
	var b strings.Builder
	b.WriteString("sent_unix_us,total_ms,command_acked_ms,result_produced_ms,result_readable_ms\n")
	for i := range s.total {
		fmt.Fprintf(&b, "%d,%.3f,%.3f,%.3f,%.3f\n", s.sent[i].UnixMicro(), ms(s.total[i]), ms(s.acked[i]), ms(s.produced[i]), ms(s.readable[i]))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// quantiles are the segments' p50 and p99.
func (s segments) quantiles() map[string]Quantiles {
	return map[string]Quantiles{"command_acked": quantiles(s.acked), "result_produced": quantiles(s.produced),
		"result_readable": quantiles(s.readable)}
}

// since returns the transactions the pipeline ended between before and s,
// and the mean time of each transaction phase in milliseconds.
func (s pipelineStats) since(before pipelineStats) (int, map[string]float64) {
	n := int(s.transactions - before.transactions)
	if n <= 0 {
		return n, nil
	}
	mean := map[string]float64{}
	for _, ph := range txnPhases {
		mean[ph] = round((s.phaseSeconds[ph]-before.phaseSeconds[ph])*1000/float64(n), 2)
	}
	return n, mean
}
