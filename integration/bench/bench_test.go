package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ds := func(ms ...int) []time.Duration {
		var out []time.Duration
		for _, m := range ms {
			out = append(out, time.Duration(m)*time.Millisecond)
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // unsorted on purpose
	}
	tests := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 99, 0},
		{"one sample", ds(7), 50, 7 * time.Millisecond},
		{"p50 of 1..100", ds(hundred...), 50, 50 * time.Millisecond},
		{"p99 of 1..100", ds(hundred...), 99, 99 * time.Millisecond},
		{"p100 is the max", ds(hundred...), 100, 100 * time.Millisecond},
		{"p0 is the min", ds(3, 1, 2), 0, 1 * time.Millisecond},
		{"nearest rank rounds up", ds(1, 2, 3, 4), 60, 3 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			if got := percentile(tc.in, tc.p); got != tc.want {
				t.Errorf("percentile(p%v) = %v, want %v", tc.p, got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Error("percentile reordered its input")
			}
		})
	}
}

func TestParseTagShare(t *testing.T) {
	out := []byte(" part: Total 2.93s of 3.06s (95.75%)\n       2.65s (86.60%): connector\n       280ms ( 9.15%): sandbox\n" +
		" phase: Total 1s of 3.06s (32.68%)\n          1s (32.68%): connector\n")
	tests := []struct {
		key, value string
		want       float64
		wantErr    bool
	}{
		{"part", "connector", 0.866, false},
		{"part", "sandbox", 0.0915, false},
		{"phase", "connector", 0.3268, false},
		{"part", "bench-clients", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			got, err := parseTagShare(out, tc.key, tc.value)
			if (err != nil) != tc.wantErr || round(got, 6) != tc.want {
				t.Errorf("share = %v, %v; want %v (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestReportJSON pins the JSON shape other tools read: section and field names.
func TestReportJSON(t *testing.T) {
	rep := &Report{Signing: Signing{Goroutines: 2, Seconds: 3, PerSecond: 1000},
		Throughput: Throughput{Commands: 5000, PerSecond: 800, CeilingFraction: 0.8},
		Latency:    Latency{P99MS: 60}, SlowAPI: SlowAPI{PerSecond: 1200, PeakRSSMiB: 90},
		Webhooks: Webhooks{PerSecond: 6000, P99MS: 20},
		Paced: Paced{RatePerSecond: 100, Commands: 1000, Connector: PacedRun{P99MS: 30}, Naive: PacedRun{P99MS: 25}, P99Ratio: 1.2,
			Segments: map[string]Quantiles{"result_readable": {P50: 3, P99: 9}}, Transactions: 990, MeanPhaseMS: map[string]float64{"end": 1.5}},
		Engines: []EngineRun{{Engine: "go", ConnectorCPUPerCmd: 1.5}, {Engine: "libcrypto", ConnectorCPUPerCmd: 0.6}}}
	rep.Targets = rep.targets()
	path := filepath.Join(t.TempDir(), "sub", "bench.json")
	if err := rep.write(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	wantKeys := map[string][]string{
		"signing":    {"goroutines", "seconds", "signs_per_s"},
		"throughput": {"commands", "commands_per_s", "connector_cpu_efficiency", "connector_cpu_ms_per_command", "connector_cpu_share", "fraction_of_signing_ceiling", "max_in_flight", "partitions", "process_cores_used", "process_cpu_ms_per_command", "process_cpu_s", "sandbox_cpu_ms_per_command", "seconds", "transactions"},
		"latency":    {"added_max_ms", "added_p50_ms", "added_p99_ms", "commands", "mean_api_call_ms", "mean_ms_between_transactions", "mean_transaction_phase_ms", "rate_per_s", "sandbox_latency_ms", "segments_ms", "transactions"},
		"slow_api": {"commands", "commands_per_s", "goroutines_at_peak", "heap_inuse_mib_at_end", "heap_inuse_mib_at_peak", "max_in_flight",
			"partitions", "peak_in_flight", "peak_rss_mib", "sandbox_latency_ms", "seconds", "stack_inuse_mib_at_peak"},
		"webhooks": {"accepted", "accepted_per_s", "p50_ms", "p99_ms", "seconds", "sent", "workers"},
		"paced": {"commands", "connector", "connector_mean_transaction_phase_ms", "connector_segments_ms", "connector_to_naive_p99_ratio",
			"connector_transactions", "naive_loop", "partitions", "rate_per_s", "rounds", "signing_engine"},
	}
	for section, keys := range wantKeys {
		m, _ := got[section].(map[string]any)
		var have []string
		for k := range m {
			have = append(have, k)
		}
		slices.Sort(have)
		if !reflect.DeepEqual(have, keys) {
			t.Errorf("%s keys = %v, want %v", section, have, keys)
		}
	}
	met := map[string]bool{}
	for _, tg := range rep.Targets {
		met[tg.Name] = tg.Met
	}
	want := map[string]bool{"end-to-end throughput": true, "slow API, 1 partition": true, "added latency p99 at half max": false,
		"webhooks accepted": true, "webhook answer p99": true, "peak RSS, ~1000 in flight": true,
		"paced p99 / naive loop p99": true, "libcrypto CPU/command vs go": true}
	if !reflect.DeepEqual(met, want) {
		t.Errorf("targets met = %v, want %v", met, want)
	}
	engines, _ := got["signing_engines"].([]any)
	if first, _ := engines[0].(map[string]any); len(engines) != 2 || first["engine"] != "go" || first["connector_cpu_ms_per_command"] != 1.5 {
		t.Errorf("signing_engines = %v", got["signing_engines"])
	}
}

func TestEngineCPUTarget(t *testing.T) {
	tests := []struct {
		name     string
		engines  []EngineRun
		measured float64
		met      bool
	}{
		{"half or less", []EngineRun{{Engine: "go", ConnectorCPUPerCmd: 1.6}, {Engine: "libcrypto", ConnectorCPUPerCmd: 0.8}}, 0.5, true},
		{"more than half", []EngineRun{{Engine: "libcrypto", ConnectorCPUPerCmd: 0.9}, {Engine: "go", ConnectorCPUPerCmd: 1.2}}, 0.75, false},
		{"libcrypto not built", []EngineRun{{Engine: "go", ConnectorCPUPerCmd: 1.2}, {Engine: "libcrypto", Error: "no cgo"}}, 0, false},
		{"go only", []EngineRun{{Engine: "go", ConnectorCPUPerCmd: 1.2}}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := (&Report{Engines: tc.engines}).engineCPUTarget()
			if got.Measured != tc.measured || got.Met != tc.met {
				t.Errorf("measured %v met %v, want %v %v", got.Measured, got.Met, tc.measured, tc.met)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr bool
	}{
		{"defaults", nil, false},
		{"scaled", []string{"-commands", "100", "-webhooks", "10", "-max-in-flight", "64"}, false},
		{"zero commands", []string{"-commands", "0"}, true},
		{"zero workers", []string{"-webhook-workers", "0"}, true},
		{"paced", []string{"-paced-commands", "200", "-paced-rate", "50", "-engines", "this", "-engine-phases-only"}, false},
		{"zero paced rate", []string{"-paced-rate", "0"}, true},
		{"zero paced warm-up", []string{"-paced-warmup", "0"}, true},
		{"zero paced rounds", []string{"-paced-rounds", "0"}, true},
		{"unknown engines", []string{"-engines", "boring"}, true},
		{"unknown flag", []string{"-nope"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseFlags(tc.args, discard{})
			if (err != nil) != tc.wantErr {
				t.Errorf("parseFlags(%v) error %v, want error %v", tc.args, err, tc.wantErr)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestSegmentsCSV(t *testing.T) {
	t0 := time.UnixMicro(1_700_000_000_000_000)
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	seg := splitLatency([]string{"a", "b"}, []time.Time{t0, t0.Add(10 * time.Millisecond)},
		map[string]time.Time{"a": t0.Add(ms(3)), "b": t0.Add(ms(14))},
		map[string]time.Time{"a": t0.Add(ms(4.5)), "b": t0.Add(ms(30))},
		map[string]time.Time{"a": t0.Add(ms(9)), "b": t0.Add(ms(41.25))})
	path := filepath.Join(t.TempDir(), "paced.csv")
	if err := seg.writeCSV(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "sent_unix_us,total_ms,command_acked_ms,result_produced_ms,result_readable_ms\n" +
		"1700000000000000,9.000,3.000,1.500,4.500\n" +
		"1700000000010000,31.250,4.000,16.000,11.250\n"
	if string(got) != want {
		t.Errorf("csv:\n%s\nwant:\n%s", got, want)
	}
}

func TestPacedSlices(t *testing.T) {
	for _, c := range []struct {
		n, rounds int
		want      []int
	}{
		{1000, 5, []int{200, 200, 200, 200, 200}},
		{1001, 5, []int{201, 200, 200, 200, 200}},
		{3, 5, []int{1, 1, 1}},
		{7, 1, []int{7}},
	} {
		if got := splitEven(c.n, c.rounds); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitEven(%d, %d) = %v, want %v", c.n, c.rounds, got, c.want)
		}
	}
	// Joined slices are one side's commands: percentiles over all of them.
	t0 := time.Unix(0, 0)
	slice := func(totals ...time.Duration) segments {
		s := segments{}
		for _, d := range totals {
			s.sent, s.total = append(s.sent, t0), append(s.total, d)
			s.acked, s.produced, s.readable = append(s.acked, 0), append(s.produced, 0), append(s.readable, d)
		}
		return s
	}
	var joined segments
	for i := range 10 {
		d := time.Duration(i*10+1) * time.Millisecond
		joined = joined.join(slice(d, d+time.Millisecond, d+2*time.Millisecond, d+3*time.Millisecond, d+4*time.Millisecond,
			d+5*time.Millisecond, d+6*time.Millisecond, d+7*time.Millisecond, d+8*time.Millisecond, d+9*time.Millisecond))
	}
	if r := joined.run(); len(joined.total) != 100 || r.MaxMS != 100 || r.P99MS != 99 || r.P50MS != 50 {
		t.Errorf("joined: %d commands, run %+v; want 100 commands, p50 50, p99 99, max 100", len(joined.total), r)
	}
}

func TestBrokerGCPausesPerSide(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gc.log")
	log := "[2026-11-24T16:21:58.400+0000] Using Serial\n" +
		"[2026-11-24T16:22:09.724+0000] GC(8) Pause Young (Allocation Failure) 289M->162M(353M) 12.414ms\n" +
		"[2026-11-24T16:22:11.848+0000] GC(9) Pause Young (Allocation Failure) 292M->164M(371M) 11.484ms\n" +
		"[2026-11-24T16:22:14.269+0000] GC(10) Pause Full (Metadata GC Threshold) 310M->165M(372M) 30.000ms\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	pauses, err := readGCPauses(path)
	if err != nil || len(pauses) != 3 {
		t.Fatalf("readGCPauses = %d pauses, %v; want 3", len(pauses), err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if !pauses[0].at.Equal(at("2026-11-24T16:22:09.724Z")) || pauses[0].dur != 12414*time.Microsecond {
		t.Errorf("first pause %+v", pauses[0])
	}
	// Only young collections count towards the broker's steady state.
	if n := youngCollections(pauses); n != 2 || !pauses[1].young || pauses[2].young {
		t.Errorf("youngCollections = %d (pauses %+v); want 2, the full collection left out", n, pauses)
	}
	if got := brokerState(2); got == "steady" {
		t.Errorf("brokerState(2) = %q; a broker that made two young collections is still in its first ones", got)
	}
	if got := brokerState(brokerSteadyAfter); got != "steady" {
		t.Errorf("brokerState(%d) = %q, want steady", brokerSteadyAfter, got)
	}
	// The first pause ends inside the first window; the second starts
	// before the second window and ends in it; the third is in neither.
	windows := []window{
		{at("2026-11-24T16:22:09.000Z"), at("2026-11-24T16:22:09.720Z")},
		{at("2026-11-24T16:22:11.840Z"), at("2026-11-24T16:22:13.000Z")},
	}
	if got := pausesIn(pauses, windows); got != (GCPauses{Count: 2, TotalMS: 23.9, MaxMS: 12.41}) {
		t.Errorf("pausesIn = %+v, want 2 pauses, 23.9 ms, longest 12.41 ms", got)
	}
	if got := pausesIn(pauses, nil); got != (GCPauses{}) {
		t.Errorf("pausesIn(no windows) = %+v", got)
	}
}

// TestPacedP99OutsidePauses: a command in flight at any moment of a pause
// (from its send to its result readable) is left out of its side's p99
// outside the pauses; every other command counts.
func TestPacedP99OutsidePauses(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	// One side: 100 commands 10 ms apart, each 5 ms, except the three
	// (sent at 480, 490 and 500 ms) that a pause from 475 to 505 ms met,
	// which took 40 ms. The other side's commands were sent at the same
	// times and no pause slowed them, but the same three were in flight
	// during it.
	side := func(pauseEnd time.Duration) segments {
		var s segments
		for i := range 100 {
			sent := t0.Add(time.Duration(i) * 10 * ms)
			d := 5 * ms
			if at := time.Duration(i) * 10 * ms; at+d > pauseEnd-30*ms && at < pauseEnd {
				d = 40 * ms
			}
			s.sent, s.total = append(s.sent, sent), append(s.total, d)
			s.acked, s.produced, s.readable = append(s.acked, 0), append(s.produced, 0), append(s.readable, d)
		}
		return s
	}
	pauses := []gcPause{{at: t0.Add(505 * ms), dur: 30 * ms}}
	conn := side(505 * ms)
	loop := side(-time.Hour) // no command slowed
	if got := conn.run().P99MS; got != 40 {
		t.Fatalf("connector p99 with the pause = %v ms, want 40", got)
	}
	g := pacedGC(pauses, "", conn, loop, []window{conn.window()}, nil)
	want := PacedOutside{Connector: 5, Naive: 5, Ratio: 1, ConnectorLeftOut: 3, NaiveLeftOut: 3}
	if g.Outside != want || g.Connector.Count != 1 || g.Naive.Count != 0 {
		t.Errorf("pacedGC = %+v, want %+v with pauses 1/0", g, want)
	}
	if g := pacedGC(nil, "open gc.log: no such file", conn, loop, nil, nil); g.Error == "" || g.Outside != (PacedOutside{}) {
		t.Errorf("unread log: %+v, want the error and nothing measured", g)
	}
}

func TestEngineTableShowsBrokerPauses(t *testing.T) {
	r := &Report{Engines: []EngineRun{
		{Engine: "go", Paced: Paced{P99Ratio: 1.9, BrokerGC: &PacedGC{Connector: GCPauses{Count: 16}, Naive: GCPauses{Count: 4},
			Outside: PacedOutside{Connector: 9.5, Naive: 7.6, Ratio: 1.25}}}},
		{Engine: "libcrypto", Paced: Paced{P99Ratio: 2.1}},
		{Engine: "unread", Paced: Paced{P99Ratio: 2.2, BrokerGC: &PacedGC{Error: "open gc.log: no such file"}}},
	}}
	var b strings.Builder
	r.print(&b)
	out := b.String()
	for _, want := range []string{`broker GC pauses connector/naive +ratio outside pauses\n`, `go .*\(1\.90\) +16/4 +9\.5/7\.6 ms \(1\.25\)\n`, `libcrypto .*\(2\.10\) +- +-\n`, `unread .*\(2\.20\) +- +-\n`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("engine table lacks %s:\n%s", want, out)
		}
	}
}

// TestSchedLatencySince: the quantiles are of the waits between the two
// reads only, at their buckets' upper bounds, and a quantile in the last,
// unbounded bucket is given its lower bound.
func TestSchedLatencySince(t *testing.T) {
	buckets := []float64{0, 0.0005, 0.001, 0.005, 0.010, math.Inf(1)}
	before := &metrics.Float64Histogram{Buckets: buckets, Counts: []uint64{500, 0, 0, 0, 0}}
	after := &metrics.Float64Histogram{Buckets: buckets, Counts: []uint64{1490, 0, 0, 9, 1}}
	got := schedLatencySince(before, after)
	want := &SchedLatency{P50MS: 0.5, P99MS: 0.5, P999MS: 10, Over5MS: 10}
	if got == nil || *got != *want {
		t.Fatalf("schedLatencySince = %+v, want %+v", got, want)
	}
	after.Counts = []uint64{500, 0, 0, 0, 2}
	if got := schedLatencySince(before, after); got == nil || got.P50MS != 10 || got.Over5MS != 2 {
		t.Errorf("waits only in the unbounded bucket: %+v, want p50 at its lower bound 10 ms", got)
	}
	if got := schedLatencySince(nil, after); got != nil {
		t.Errorf("without a first read: %+v, want nil", got)
	}
}
