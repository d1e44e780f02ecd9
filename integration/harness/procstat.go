package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// What the benches read of a process from /proc: its CPU time and its
// memory, for a process of their own (a broker, the sandbox, a connector)
// or for themselves ("self").

// ProcessCPU returns the user+system CPU time process pid ("self" or a
// number) has used so far.
func ProcessCPU(pid string) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	return ParseStatCPU(b)
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times (100 on every
// Linux architecture Go supports).
const clockTicks = 100

// ParseStatCPU reads utime+stime of a /proc/<pid>/stat line. The fields
// are counted after the command name, which is in parentheses and may hold
// spaces.
func ParseStatCPU(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("stat: no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("stat: %d fields", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// ProcessMemory returns the named "Name:   1234 kB" fields of process pid's
// /proc/<pid>/status ("self" or a number; VmRSS, VmHWM, ...), in bytes, in
// the order asked.
func ProcessMemory(pid string, names ...string) ([]int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(names))
	for i, name := range names {
		if out[i], err = ParseStatusKB(b, name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ParseStatusKB reads a "Name:   1234 kB" line of /proc/<pid>/status, in
// bytes.
func ParseStatusKB(status []byte, name string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != name {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s: unexpected %q", name, v)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		return n * 1024, err
	}
	return 0, fmt.Errorf("%s not found", name)
}
