package main

import (
	"math"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/paysession/paysession/integration/harness"
)

// percentile returns the p-th percentile (0..100) of ds by the nearest-rank
// method; 0 for no samples.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// ms is d in milliseconds, rounded to 0.01.
func ms(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Millisecond)*100) / 100 }

// cpuTime is the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS resets the kernel's high-water mark of this process's RSS
// (VmHWM), so a phase can measure its own peak.
func resetPeakRSS() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is this process's VmHWM in bytes.
func peakRSS() (int64, error) { return selfMemory("VmHWM") }

// currentRSS is this process's VmRSS in bytes.
func currentRSS() (int64, error) { return selfMemory("VmRSS") }

func selfMemory(name string) (int64, error) {
	m, err := harness.ProcessMemory("self", name)
	if err != nil {
		return 0, err
	}
	return m[0], nil
}

func mib(b int64) float64 { return math.Round(float64(b)/(1<<20)*10) / 10 }

func round(f float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(f*p) / p
}
