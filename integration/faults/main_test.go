package faults_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

// scaleEnv selects the size: FAULTS_SCALE=full is make faults; anything
// else (make test) is the small size.
const scaleEnv = "FAULTS_SCALE"

var (
	outPath = flag.String("faults.out", "",
		"file receiving the scenario table as JSON (default .cache/faults.json, small size .cache/faults-small.json)")
	seedFlag = flag.Uint64("faults.seed", 0, "seed of the scenarios' random choices (0: 1, or $FAULTS_SEED)")
)

// full reports whether the suite runs at full size.
func full() bool { return os.Getenv(scaleEnv) == "full" }

func scale() string {
	if full() {
		return "full"
	}
	return "small"
}

// size returns small or big by the scale, overridden by the variable name
// when set (e.g. FAULTS_CRASH_COMMANDS=2000).
func size(name string, small, big int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	if full() {
		return big
	}
	return small
}

// seed is the seed of the run's random choices, printed by each scenario.
func seed() uint64 {
	if *seedFlag != 0 {
		return *seedFlag
	}
	if v, err := strconv.ParseUint(os.Getenv("FAULTS_SEED"), 10, 64); err == nil && v != 0 {
		return v
	}
	return 1
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if len(table.rows) > 0 {
		fmt.Printf("\nfault scenarios (%s size):\n", scale())
		table.print(os.Stdout)
		if *outPath == "" {
			*outPath = filepath.Join("..", "..", ".cache", "faults.json") // the test runs in its package's directory
			if !full() {
				*outPath = filepath.Join("..", "..", ".cache", "faults-small.json") // make test keeps make faults' table
			}
		}
		if err := table.write(*outPath, scale()); err != nil {
			fmt.Fprintln(os.Stderr, "faults: write table:", err)
		} else {
			fmt.Println("table written to", *outPath)
		}
	}
	if binaries.dir != "" {
		_ = os.RemoveAll(binaries.dir)
	}
	harness.Shutdown()
	os.Exit(code)
}
