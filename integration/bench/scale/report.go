package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// report is what a run measured; it is written as JSON.
type report struct {
	StartedAt  string            `json:"started_at"`
	GoVersion  string            `json:"go_version"`
	CPUs       int               `json:"cpus"`
	Brokers    string            `json:"brokers"` // "local" when started here
	Binaries   map[string]string `json:"binaries"`
	Horizon    string            `json:"horizon,omitempty"` // PAYSESSION_SESSIONS_HORIZON of -connector
	Reconciler bool              `json:"reconciler"`
	Sizes      []sized           `json:"sizes"`
}

// sized is what one partition size measured.
type sized struct {
	Historical int    `json:"historical"`
	Recent     int    `json:"recent"`
	Fill       filled `json:"fill"`
	// SettleSeconds is the wait for the broker to be quiet after the fill.
	SettleSeconds float64  `json:"settle_seconds"`
	Samples       []sample `json:"samples"`
}

func newReport(o options, r *rig) *report {
	rep := &report{StartedAt: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		Brokers: o.brokers, Binaries: map[string]string{}, Horizon: o.horizon, Reconciler: o.reconciler}
	if rep.Brokers == "" {
		rep.Brokers = "local"
	}
	for _, b := range r.bins {
		rep.Binaries[b.Label] = b.Path
	}
	return rep
}

// print writes the fill of each size, then one table of every takeover.
func (rep *report) print(w io.Writer) {
	fmt.Fprintf(w, "\nSession writer takeover by sessions partition size (%s, %d CPUs, reconciler %s)\n\n",
		rep.GoVersion, rep.CPUs, map[bool]string{true: "on", false: "off"}[rep.Reconciler])
	for _, s := range rep.Sizes {
		fmt.Fprintf(w, "fill %d+%d: %d records, %.0f MB in %.1f s (%.0f records/s), broker settled in %.0f s\n",
			s.Historical, s.Recent, s.Fill.Records, float64(s.Fill.Bytes)/1e6, s.Fill.Seconds, s.Fill.Rate, s.SettleSeconds)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join([]string{"historical", "recent", "binary", "takeover s", "writer ready s", "ready s",
		"RSS MiB", "peak RSS MiB", "heap MiB", "live heap MiB", "sessions held", ""}, "\t"))
	for _, s := range rep.Sizes {
		for _, m := range s.Samples {
			fmt.Fprintf(tw, "%d\t%d\t%s\t%.2f\t%.2f\t%.2f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t\n", s.Historical, s.Recent, m.Binary,
				m.TakeoverSeconds, m.WriterReadySeconds, m.ReadySeconds, mib(m.RSSBytes), mib(m.PeakRSSBytes),
				m.HeapInuseBytes/(1<<20), m.LiveHeapBytes/(1<<20), m.Sessions)
		}
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nheap: in use at ready; live heap: after a forced GC; RSS at ready; peak RSS: VmHWM")
}

// write writes rep as indented JSON to path, creating its directory.
func (rep *report) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// round rounds x to digits decimals, for logs.
func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
