package main

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"time"
)

// The broker's stop-the-world pauses, beside the paced phase.
//
// The paced p99 of either side was, in every run looked at, commands in
// flight during one of the broker's young collections (10-17 ms with the
// harness's serial collector and its 128 MiB starting heap); the connector's
// transactions make the broker collect about four times as often as the
// naive loop's traffic. A broker the bench starts itself logs its pauses
// (-Xlog:gc, brokerGCLogArgs), and the paced phase counts those that fell
// inside each side's slices.

// brokerHeap is the heap of a broker the bench starts: fixed at 1 GiB, the
// heap Kafka's own start script gives a broker (KAFKA_HEAP_OPTS defaults to
// -Xmx1G -Xms1G). The harness starts the suite's brokers at 128 MiB, where
// the serial collector's young generation is about 40 MiB: under the paced
// phase's transactions that broker collected every 0.7 s (12 pauses of
// 10-22 ms in the connector's 10 seconds of slices), which is the test
// heap's footprint, not a broker's. At 1 GiB the young generation is about
// 340 MiB and the same traffic meets about one pause (21-55 ms) per side.
// The collector stays the harness's serial one: at 1 GiB, the parallel
// collector cost throughput and G1 with Kafka's own flags paused more often
// in the half-max phase (RESULTS-archive.md, session 12).
const brokerHeap = "1g"

// brokerGCLogArgs are the JVM flags that make the broker log every pause,
// with wall-clock times, to path.
func brokerGCLogArgs(path string) []string { return []string{"-Xlog:gc:file=" + path + ":time"} }

// gcPause is one pause of the broker's log.
type gcPause struct {
	at    time.Time // when it was logged (its end)
	dur   time.Duration
	young bool // a young collection (Pause Young), not a full one
}

// gcPauseLine matches a -Xlog:gc pause line with the time decoration, e.g.
// "[2026-11-24T16:22:09.724+0000] GC(8) Pause Young (Allocation Failure) 289M->162M(353M) 12.414ms".
var gcPauseLine = regexp.MustCompile(`^\[([0-9T:.+\-]+)\] GC\(\d+\) Pause (\w+) .* ([0-9.]+)ms$`)

// readGCPauses reads the pauses of a broker's GC log.
func readGCPauses(path string) ([]gcPause, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []gcPause
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := gcPauseLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at, err := time.Parse("2006-01-02T15:04:05.000-0700", m[1])
		ms, err2 := strconv.ParseFloat(m[3], 64)
		if err != nil || err2 != nil {
			continue
		}
		out = append(out, gcPause{at: at, dur: time.Duration(ms * float64(time.Millisecond)), young: m[2] == "Young"})
	}
	return out, sc.Err()
}

// window is a span of wall-clock time: one slice of one side.
type window struct{ from, to time.Time }

// GCPauses counts the broker's pauses that overlapped one side's slices.
type GCPauses struct {
	Count   int     `json:"count"`
	TotalMS float64 `json:"total_ms"`
	MaxMS   float64 `json:"max_ms"`
}

// pausesIn counts the pauses that overlap any of the windows.
func pausesIn(pauses []gcPause, windows []window) GCPauses {
	var g GCPauses
	for _, p := range pauses {
		for _, w := range windows {
			if p.overlaps(w.from, w.to) {
				g.Count++
				g.TotalMS += ms(p.dur)
				g.MaxMS = max(g.MaxMS, ms(p.dur))
				break
			}
		}
	}
	g.TotalMS = round(g.TotalMS, 1)
	return g
}

// readBrokerPauses reads the pauses of the broker's GC log. ok is false
// when the bench knows no GC log; errText says why a known log could not
// be read (then nothing is counted: a readout, not a reason to stop the
// bench).
func (e *env) readBrokerPauses() (pauses []gcPause, errText string, ok bool) {
	if e.gcLog == "" {
		return nil, "", false
	}
	pauses, err := readGCPauses(e.gcLog)
	if err != nil {
		return nil, err.Error(), true
	}
	return pauses, "", true
}

// overlaps reports whether the pause stopped the broker at some time
// between from and to.
func (p gcPause) overlaps(from, to time.Time) bool {
	return p.at.Add(-p.dur).Before(to) && p.at.After(from)
}
