package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// profile is a CPU profile of one phase, written to <dir>/bench-<phase>.pprof.
type profile struct {
	path string
	f    *os.File
}

func startProfile(dir, phase string) (*profile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "bench-"+phase+".pprof")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return &profile{path: path, f: f}, nil
}

// stop ends the profile and returns its path.
func (p *profile) stop() string {
	pprof.StopCPUProfile()
	p.f.Close()
	return p.path
}

// writeHeapProfile writes a heap profile taken during a phase to path and
// returns the path ("" without a profile).
func writeHeapProfile(path string, heap []byte) (string, error) {
	if len(heap) == 0 {
		return "", nil
	}
	if err := os.WriteFile(path, heap, 0o644); err != nil {
		return "", fmt.Errorf("heap profile: %w", err)
	}
	return path, nil
}

// profileTop returns `go tool pprof -top` of a profile, 10 nodes.
func profileTop(path string, flags ...string) (string, error) {
	args := append(append([]string{"tool", "pprof", "-top", "-nodecount=10"}, flags...), path)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w: %s", err, out)
	}
	return string(out), nil
}

// labelShare is the share of a profile's CPU samples whose label key has
// value, read from `go tool pprof -tags`.
func labelShare(path, key, value string) (float64, error) {
	out, err := exec.Command("go", "tool", "pprof", "-tags", path).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("go tool pprof -tags: %w: %s", err, out)
	}
	return parseTagShare(out, key, value)
}

// tagLine is a value line of `go tool pprof -tags`: "  1.20s (45.00%): connector".
var tagLine = regexp.MustCompile(`^\s+\S+\s+\(\s*([0-9.]+)%\):\s+(.*)$`)

// tagKeyLine starts a label key's block: " part: Total 2.93s of 3.06s (95.75%)".
var tagKeyLine = regexp.MustCompile(`^\s*(\S+): Total `)

// parseTagShare finds value under "key: Total ..." in pprof -tags output.
func parseTagShare(out []byte, key, value string) (float64, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	in := false
	for sc.Scan() {
		line := sc.Text()
		if m := tagKeyLine.FindStringSubmatch(line); m != nil {
			in = m[1] == key
			continue
		}
		if m := tagLine.FindStringSubmatch(line); in && m != nil && strings.TrimSpace(m[2]) == value {
			pct, err := strconv.ParseFloat(m[1], 64)
			return pct / 100, err
		}
	}
	return 0, fmt.Errorf("label %s=%s not in profile", key, value)
}

// metricSum sums a metric's series in reg (0 when absent): gauges and
// counters by value, histograms by their sample sum and count.
func metricSum(reg prometheus.Gatherer, name string) (value, count float64) {
	return metricSumWhere(reg, name, "", "")
}

// metricSumWhere is metricSum over the series whose label has the value
// (every series when label is empty).
func metricSumWhere(reg prometheus.Gatherer, name, label, want string) (value, count float64) {
	mfs, err := reg.Gather()
	if err != nil {
		return 0, 0
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if label != "" && !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
				return l.GetName() == label && l.GetValue() == want
			}) {
				continue
			}
			switch {
			case m.Gauge != nil:
				value += m.GetGauge().GetValue()
			case m.Counter != nil:
				value += m.GetCounter().GetValue()
			case m.Histogram != nil:
				value += m.GetHistogram().GetSampleSum()
				count += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return value, count
}

// gaugeValue is the sum of a gauge's series in reg.
func gaugeValue(reg prometheus.Gatherer, name string) float64 {
	v, _ := metricSum(reg, name)
	return v
}

// pipelineStats are counters of the connector read before and after a phase.
type pipelineStats struct {
	transactions    float64
	apiSeconds, api float64
	phaseSeconds    map[string]float64 // calls, produce, end: total time in the transaction phase
}

// txnPhases are the phases of paysession_pipeline_transaction_phase_seconds.
var txnPhases = []string{"marks", "calls", "produce", "end"}

func readPipelineStats(reg prometheus.Gatherer) pipelineStats {
	var s pipelineStats
	s.transactions, _ = metricSum(reg, "paysession_pipeline_transactions_total")
	s.apiSeconds, s.api = metricSum(reg, "paysession_api_request_duration_seconds")
	s.phaseSeconds = map[string]float64{}
	for _, ph := range txnPhases {
		s.phaseSeconds[ph], _ = metricSumWhere(reg, "paysession_pipeline_transaction_phase_seconds", "phase", ph)
	}
	return s
}
