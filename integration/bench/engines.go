package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/signing"
)

// EngineRun is what the engine-dependent phases measured with one signing
// engine: the engine of NewRSASigner in the bench that ran them, hence of
// the connector and of the naive loop.
type EngineRun struct {
	Engine             string  `json:"engine"`
	SignsPerSecond     float64 `json:"signs_per_s"`
	CommandsPerSecond  float64 `json:"commands_per_s"`
	ProcessCPUPerCmd   float64 `json:"process_cpu_ms_per_command"`
	ConnectorCPUPerCmd float64 `json:"connector_cpu_ms_per_command"`
	Paced              Paced   `json:"paced"`
	// Error says why the engine was not measured.
	Error string `json:"error,omitempty"`
}

// engineRun takes the engine-dependent figures of a report.
func engineRun(r *Report) EngineRun {
	return EngineRun{Engine: string(signing.DefaultEngine), SignsPerSecond: r.Signing.PerSecond,
		CommandsPerSecond: r.Throughput.PerSecond, ProcessCPUPerCmd: r.Throughput.ProcessCPUPerCmd,
		ConnectorCPUPerCmd: r.Throughput.ConnectorCPUPerCmd, Paced: r.Paced}
}

// otherEngine is the engine this bench was not built with, and the build
// tags of a bench that has it as its default.
func otherEngine() (signing.Engine, string) {
	if signing.DefaultEngine == signing.EngineLibcrypto {
		return signing.EngineGo, ""
	}
	return signing.EngineLibcrypto, "libcrypto"
}

// measureOtherEngine builds this bench for the other signing engine and
// runs its engine phases on the same broker (sandbox and connector of its
// own, run after this process's phases, so the two never share the cores).
func (e *env) measureOtherEngine(ctx context.Context, o options, log *slog.Logger) EngineRun {
	engine, tags := otherEngine()
	run := EngineRun{Engine: string(engine)}
	bin := filepath.Join(e.dir, "bench-"+string(engine))
	build := exec.CommandContext(ctx, "go", "build", "-tags", tags, "-o", bin, "github.com/paysession/paysession/integration/bench")
	if tags != "" {
		build.Env = append(os.Environ(), "CGO_ENABLED=1")
	}
	if out, err := build.CombinedOutput(); err != nil {
		run.Error = fmt.Sprintf("go build -tags %q: %v: %s", tags, err, strings.TrimSpace(string(out)))
		return run
	}
	out := filepath.Join(e.dir, "bench-"+string(engine)+".json")
	args := []string{"-engine-phases-only", "-engines", "this", "-out", out, "-profile-dir", filepath.Join(o.profileDir, string(engine)),
		"-sign-for", o.signFor.String(), "-commands", strconv.Itoa(o.commands), "-partitions", strconv.Itoa(o.partitions),
		"-max-in-flight", strconv.Itoa(o.maxInFlight), "-paced-commands", strconv.Itoa(o.pacedCommands),
		"-paced-rate", strconv.FormatFloat(o.pacedRate, 'f', -1, 64), "-paced-warmup", strconv.Itoa(o.pacedWarmUp),
		"-paced-rounds", strconv.Itoa(o.pacedRounds),
		"-log-level", o.logLevel}
	if o.pacedCSV != "" {
		args = append(args, "-paced-csv", o.pacedCSV+"-"+string(engine))
	}
	if e.gcLog != "" {
		args = append(args, "-broker-gc-log", e.gcLog)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), harness.BrokersEnv+"="+strings.Join(e.brokers, ","))
	cmd.Stderr = os.Stderr // its log; its table (stdout) is folded into this one
	log.Info("signing engine " + string(engine) + ": running the engine phases with a bench built for it")
	if err := cmd.Run(); err != nil {
		run.Error = fmt.Sprintf("bench for %s: %v", engine, err)
		return run
	}
	b, err := os.ReadFile(out)
	var r Report
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		run.Error = fmt.Sprintf("bench for %s: report: %v", engine, err)
		return run
	}
	got := engineRun(&r)
	got.Engine = string(engine)
	return got
}
