package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// Report.Broker says whose broker the figures were measured on.
const (
	brokerLocal    = "local"    // started by the bench
	brokerExternal = "external" // the one at KAFKA_BROKERS
)

// Report is what a bench run measured; it is written as JSON.
type Report struct {
	StartedAt  string     `json:"started_at"`
	GoVersion  string     `json:"go_version"`
	CPUs       int        `json:"cpus"`
	Broker     string     `json:"broker"` // brokerLocal or brokerExternal
	Signing    Signing    `json:"signing"`
	Throughput Throughput `json:"throughput"`
	Latency    Latency    `json:"latency"`
	SlowAPI    SlowAPI    `json:"slow_api"`
	Webhooks   Webhooks   `json:"webhooks"`
	Paced      Paced      `json:"paced"`
	// Engines are the engine-dependent figures per signing engine, this
	// bench's first.
	Engines []EngineRun `json:"signing_engines,omitempty"`
	Targets []Target    `json:"targets"`
	Notes   []string    `json:"notes,omitempty"`
}

// Signing is the machine's RSA-2048 PKCS#1 v1.5 signing rate with
// internal/signing: the ceiling of commands/s (one signature per API call).
type Signing struct {
	Goroutines int     `json:"goroutines"`
	Seconds    float64 `json:"seconds"`
	PerSecond  float64 `json:"signs_per_s"`
}

// Throughput is the end-to-end phase: N commands produced at once, timed
// until every result is readable with read_committed.
type Throughput struct {
	Commands         int     `json:"commands"`
	Partitions       int     `json:"partitions"`
	MaxInFlight      int     `json:"max_in_flight"`
	Seconds          float64 `json:"seconds"`
	PerSecond        float64 `json:"commands_per_s"`
	CeilingFraction  float64 `json:"fraction_of_signing_ceiling"`
	ProcessCPU       float64 `json:"process_cpu_s"`
	ProcessCPUPerCmd float64 `json:"process_cpu_ms_per_command"`
	// ConnectorShare is the connector's share of the process's CPU samples
	// (pprof label part=connector); the rest is the sandbox and the bench's clients.
	ConnectorShare     float64 `json:"connector_cpu_share"`
	ConnectorCPUPerCmd float64 `json:"connector_cpu_ms_per_command"`
	// CoresUsed is process CPU / wall time (the broker JVM and anything
	// else on the machine take the rest of the cores).
	CoresUsed float64 `json:"process_cores_used"`
	// ConnectorEfficiency is the CPU of one signature (from the signing
	// phase) over the connector's CPU per command: the fraction of the
	// signing ceiling the connector would reach with every core to itself.
	ConnectorEfficiency float64 `json:"connector_cpu_efficiency"`
	// SandboxCPUPerCmd is the sandbox process's CPU per command (it
	// verifies every request's signature); not part of ProcessCPU.
	SandboxCPUPerCmd float64 `json:"sandbox_cpu_ms_per_command"`
	// Transactions the pipeline ended during the phase and the mean time
	// of each transaction phase: fewer, larger batches sign with fewer
	// pauses at their ends.
	Transactions int                `json:"transactions"`
	MeanPhaseMS  map[string]float64 `json:"mean_transaction_phase_ms,omitempty"`
	Profile      string             `json:"profile,omitempty"`
}

// Latency is the steady-rate phase at half the measured maximum.
type Latency struct {
	RatePerSecond    float64 `json:"rate_per_s"`
	Commands         int     `json:"commands"`
	SandboxLatencyMS float64 `json:"sandbox_latency_ms"`
	P50MS            float64 `json:"added_p50_ms"`
	P99MS            float64 `json:"added_p99_ms"`
	MaxMS            float64 `json:"added_max_ms"`
	// Transactions the pipeline ended during the phase, the mean time
	// between them, and the mean API call time: where the latency goes.
	Transactions  int     `json:"transactions"`
	MeanTxnMS     float64 `json:"mean_ms_between_transactions"`
	MeanAPICallMS float64 `json:"mean_api_call_ms"`
	// MeanPhaseMS is the mean time of a transaction's phases (calls,
	// produce, end) from paysession_pipeline_transaction_phase_seconds.
	MeanPhaseMS map[string]float64 `json:"mean_transaction_phase_ms"`
	// Segments split each command's latency: command_acked (produce call →
	// the broker acknowledged the command: upstream's part), result_produced
	// (→ the connector produced the result: waiting to be fetched, the
	// batch's API calls), result_readable (→ readable with read_committed:
	// flush, commit, fetch).
	Segments map[string]Quantiles `json:"segments_ms"`
	// BrokerGC counts the broker's pauses during the phase (a broker the
	// bench started, or -broker-gc-log): its tail is where they fell.
	BrokerGC *PhaseGC `json:"broker_gc_pauses,omitempty"`
	// Sched is how long the bench process's goroutines waited runnable
	// during the phase (signing.Gate says why it matters).
	Sched   *SchedLatency `json:"goroutine_scheduling,omitempty"`
	Profile string        `json:"profile,omitempty"`
}

// PhaseGC counts the broker's pauses during one phase.
type PhaseGC struct {
	GCPauses
	// Error says why the log could not be read (then nothing was counted).
	Error string `json:"error,omitempty"`
}

// Quantiles are the p50 and p99 of a duration, in milliseconds.
type Quantiles struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

func quantiles(d []time.Duration) Quantiles {
	return Quantiles{P50: ms(percentile(d, 50)), P99: ms(percentile(d, 99))}
}

// SlowAPI is the phase with sandbox latency on one partition.
type SlowAPI struct {
	SandboxLatencyMS float64 `json:"sandbox_latency_ms"`
	Partitions       int     `json:"partitions"`
	MaxInFlight      int     `json:"max_in_flight"`
	Commands         int     `json:"commands"`
	Seconds          float64 `json:"seconds"`
	PerSecond        float64 `json:"commands_per_s"`
	PeakInFlight     float64 `json:"peak_in_flight"`
	PeakRSSMiB       float64 `json:"peak_rss_mib"`
	HeapInUseMiB     float64 `json:"heap_inuse_mib_at_end"`
	// The Go runtime when this process's RSS last grew (the phase's peak):
	// heap spans in use (live data and garbage not yet collected),
	// goroutine stacks, goroutines.
	HeapInUseAtPeakMiB float64 `json:"heap_inuse_mib_at_peak"`
	StackAtPeakMiB     float64 `json:"stack_inuse_mib_at_peak"`
	GoroutinesAtPeak   int     `json:"goroutines_at_peak"`
	Profile            string  `json:"profile,omitempty"`
	// HeapProfile is the heap profile (inuse_space as of the last GC) of
	// that moment.
	HeapProfile string `json:"heap_profile,omitempty"`
}

// Webhooks is the webhook-endpoint phase.
type Webhooks struct {
	Workers   int     `json:"workers"`
	Sent      int     `json:"sent"`
	Accepted  int     `json:"accepted"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"accepted_per_s"`
	P50MS     float64 `json:"p50_ms"`
	P99MS     float64 `json:"p99_ms"`
	Profile   string  `json:"profile,omitempty"`
}

// Target is one goal of the issue and whether this run reached it.
type Target struct {
	Name     string  `json:"name"`
	Goal     string  `json:"goal"`
	Measured float64 `json:"measured"`
	Unit     string  `json:"unit"`
	Met      bool    `json:"met"`
}

// targets judges the figures against the goals.
func (r *Report) targets() []Target {
	return []Target{
		{"end-to-end throughput", ">= 0.70 of signing ceiling", r.Throughput.CeilingFraction, "fraction", r.Throughput.CeilingFraction >= 0.70},
		{"slow API, 1 partition", ">= 1000 commands/s", r.SlowAPI.PerSecond, "commands/s", r.SlowAPI.PerSecond >= 1000},
		{"added latency p99 at half max", "<= 50 ms", r.Latency.P99MS, "ms", r.Latency.P99MS > 0 && r.Latency.P99MS <= 50},
		{"webhooks accepted", ">= 5000 /s", r.Webhooks.PerSecond, "webhooks/s", r.Webhooks.PerSecond >= 5000},
		{"webhook answer p99", "<= 50 ms", r.Webhooks.P99MS, "ms", r.Webhooks.P99MS > 0 && r.Webhooks.P99MS <= 50},
		{"peak RSS, ~1000 in flight", "<= 150 MiB", r.SlowAPI.PeakRSSMiB, "MiB", r.SlowAPI.PeakRSSMiB > 0 && r.SlowAPI.PeakRSSMiB <= 150},
		{"paced p99 / naive loop p99", "<= 1.5", r.Paced.P99Ratio, "ratio", r.Paced.P99Ratio > 0 && r.Paced.P99Ratio <= 1.5},
		r.engineCPUTarget(),
	}
}

// engineCPUTarget judges the libcrypto engine's connector CPU per command
// against half of the go engine's, both from this run.
func (r *Report) engineCPUTarget() Target {
	t := Target{Name: "libcrypto CPU/command vs go", Goal: "<= 0.5", Unit: "ratio"}
	cpu := map[string]float64{}
	for _, e := range r.Engines {
		if e.Error == "" {
			cpu[e.Engine] = e.ConnectorCPUPerCmd
		}
	}
	if cpu["go"] > 0 && cpu["libcrypto"] > 0 {
		t.Measured = round(cpu["libcrypto"]/cpu["go"], 2)
		t.Met = t.Measured <= 0.5
	}
	return t
}

func (r *Report) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\nmeasure\tvalue\n")
	row := func(name, format string, v ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{name}, v...)...) }
	row("RSA-2048 signs/s", "%.0f (%d goroutines, %.1fs)", r.Signing.PerSecond, r.Signing.Goroutines, r.Signing.Seconds)
	t := r.Throughput
	row("end-to-end commands/s", "%.0f (%d commands, %d partitions, in-flight %d, %.2fs; %d transactions)", t.PerSecond, t.Commands, t.Partitions, t.MaxInFlight, t.Seconds, t.Transactions)
	row("  fraction of signing ceiling", "%.2f", t.CeilingFraction)
	row("  process CPU ms/command", "%.3f (connector share %.0f%%; sandbox process %.3f more)", t.ProcessCPUPerCmd, 100*t.ConnectorShare, t.SandboxCPUPerCmd)
	row("  connector CPU ms/command", "%.3f (efficiency vs signing %.2f; process used %.2f cores)", t.ConnectorCPUPerCmd, t.ConnectorEfficiency, t.CoresUsed)
	l := r.Latency
	row("added latency at half max", "p50 %.1f ms, p99 %.1f ms, max %.1f ms (%.0f/s, %d commands)", l.P50MS, l.P99MS, l.MaxMS, l.RatePerSecond, l.Commands)
	sg := l.Segments
	row("  segments p50/p99", "command acked %.0f/%.0f ms, then result produced %.0f/%.0f ms, then readable %.0f/%.0f ms",
		sg["command_acked"].P50, sg["command_acked"].P99, sg["result_produced"].P50, sg["result_produced"].P99,
		sg["result_readable"].P50, sg["result_readable"].P99)
	s := r.SlowAPI
	row("  pipeline transactions", "%d, one per %.1f ms; mean API call %.1f ms", l.Transactions, l.MeanTxnMS, l.MeanAPICallMS)
	row("  transaction phases", "%s", phaseList(l.MeanPhaseMS))
	if g := l.BrokerGC; g != nil && g.Error != "" {
		row("  broker GC pauses in the phase", "not read: %s", g.Error)
	} else if g != nil {
		row("  broker GC pauses in the phase", "%d (%.0f ms, longest %.1f ms)", g.Count, g.TotalMS, g.MaxMS)
	}
	if sc := l.Sched; sc != nil {
		row("  goroutine scheduling waits", "p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, %d of 5 ms or more", sc.P50MS, sc.P99MS, sc.P999MS, sc.Over5MS)
	}
	row("slow API commands/s", "%.0f (latency %.0f ms, %d partition, in-flight %d, peak in flight %.0f)", s.PerSecond, s.SandboxLatencyMS, s.Partitions, s.MaxInFlight, s.PeakInFlight)
	row("  peak RSS (connector + bench clients)", "%.1f MiB (heap in use at end %.1f MiB)", s.PeakRSSMiB, s.HeapInUseMiB)
	row("  at the peak", "heap in use %.1f MiB, stacks %.1f MiB, %d goroutines", s.HeapInUseAtPeakMiB, s.StackAtPeakMiB, s.GoroutinesAtPeak)
	pc := r.Paced
	row("paced readable latency", "connector p50 %.1f ms, p99 %.1f ms, max %.1f ms; naive loop p50 %.1f ms, p99 %.1f ms, max %.1f ms",
		pc.Connector.P50MS, pc.Connector.P99MS, pc.Connector.MaxMS, pc.Naive.P50MS, pc.Naive.P99MS, pc.Naive.MaxMS)
	row("  p99 connector / naive", "%.2f (%.0f/s, %d commands each in %d alternating slices, %d partitions, signer %s)",
		pc.P99Ratio, pc.RatePerSecond, pc.Commands, pc.Rounds, pc.Partitions, pc.Engine)
	ps := pc.Segments
	row("  connector segments p50/p99", "command acked %.0f/%.0f ms, then result produced %.0f/%.0f ms, then readable %.0f/%.0f ms",
		ps["command_acked"].P50, ps["command_acked"].P99, ps["result_produced"].P50, ps["result_produced"].P99,
		ps["result_readable"].P50, ps["result_readable"].P99)
	row("  connector transactions", "%d; mean phases %s", pc.Transactions, phaseList(pc.MeanPhaseMS))
	if g := pc.BrokerGC; g != nil && g.Error != "" {
		row("  broker GC pauses in the slices", "not read: %s", g.Error)
	} else if g != nil {
		row("  broker GC pauses in the slices", "connector's %d (%.0f ms, longest %.1f ms), naive loop's %d (%.0f ms, longest %.1f ms)",
			g.Connector.Count, g.Connector.TotalMS, g.Connector.MaxMS, g.Naive.Count, g.Naive.TotalMS, g.Naive.MaxMS)
		o := g.Outside
		row("  p99 outside those pauses", "connector %.1f ms (%d commands a pause met left out), naive loop %.1f ms (%d left out): %.2f (a readout; the target is the ratio above)",
			o.Connector, o.ConnectorLeftOut, o.Naive, o.NaiveLeftOut, o.Ratio)
		row("  broker before the phase", "%d young collections (%s)", g.YoungBefore, brokerState(g.YoungBefore))
	}
	h := r.Webhooks
	row("webhooks accepted/s", "%.0f (%d/%d accepted, %d workers)", h.PerSecond, h.Accepted, h.Sent, h.Workers)
	row("  webhook answer", "p50 %.1f ms, p99 %.1f ms", h.P50MS, h.P99MS)
	if len(r.Engines) > 0 {
		fmt.Fprintf(tw, "\nsigning engine\tsigns/s\tcommands/s\tconnector CPU ms/cmd\tprocess CPU ms/cmd\tpaced p99 connector/naive\tbroker GC pauses connector/naive\tratio outside pauses\n")
		for _, e := range r.Engines {
			if e.Error != "" {
				fmt.Fprintf(tw, "%s\tnot measured: %s\n", e.Engine, e.Error)
				continue
			}
			pauses, outside := "-", "-"
			if g := e.Paced.BrokerGC; g != nil && g.Error == "" {
				pauses = fmt.Sprintf("%d/%d", g.Connector.Count, g.Naive.Count)
				outside = fmt.Sprintf("%.1f/%.1f ms (%.2f)", g.Outside.Connector, g.Outside.Naive, g.Outside.Ratio)
			}
			fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.3f\t%.3f\t%.1f/%.1f ms (%.2f)\t%s\t%s\n", e.Engine, e.SignsPerSecond, e.CommandsPerSecond,
				e.ConnectorCPUPerCmd, e.ProcessCPUPerCmd, e.Paced.Connector.P99MS, e.Paced.Naive.P99MS, e.Paced.P99Ratio, pauses, outside)
		}
	}
	fmt.Fprintf(tw, "\ntarget\tgoal\tmeasured\tmet\n")
	for _, g := range r.Targets {
		fmt.Fprintf(tw, "%s\t%s\t%.2f %s\t%v\n", g.Name, g.Goal, g.Measured, g.Unit, g.Met)
	}
	_ = tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

func (r *Report) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// phaseList prints mean transaction phases in txnPhases order.
func phaseList(mean map[string]float64) string {
	var b strings.Builder
	for i, ph := range txnPhases {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.1f ms", ph, mean[ph])
	}
	return b.String()
}
