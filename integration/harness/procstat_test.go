package harness

import (
	"testing"
	"time"
)

func TestParseStatusKB(t *testing.T) {
	status := []byte("Name:\tbench\nVmPeak:\t  900000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t  100000 kB\n")
	tests := []struct {
		name    string
		field   string
		want    int64
		wantErr bool
	}{
		{"peak rss", "VmHWM", 123456 * 1024, false},
		{"current rss", "VmRSS", 100000 * 1024, false},
		{"missing", "VmSwap", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStatusKB(status, tc.field)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ParseStatusKB(%s) = %d, %v; want %d (error %v)", tc.field, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		name    string
		stat    string
		want    time.Duration
		wantErr bool
	}{
		{"plain", "4242 (paysim) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 70 0 0 20 0 12 0", 3200 * time.Millisecond, false},
		{"name with spaces and parens", "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0", 30 * time.Millisecond, false},
		{"truncated", "7 (x) R 1 7", 0, true},
		{"no name", "7 x R", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStatCPU([]byte(tc.stat))
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ParseStatCPU = %v, %v; want %v (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestProcessReadsThisProcess: the readers read this process's own /proc
// files.
func TestProcessReadsThisProcess(t *testing.T) {
	if _, err := ProcessCPU("self"); err != nil {
		t.Errorf("ProcessCPU(self): %v", err)
	}
	m, err := ProcessMemory("self", "VmRSS", "VmHWM")
	if err != nil || m[0] <= 0 || m[1] < m[0] {
		t.Errorf("ProcessMemory(self) = %v, %v; want VmRSS > 0 and VmHWM ≥ VmRSS", m, err)
	}
}
