package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// groupAttr makes a child the leader of its own process group, so the whole group can be signalled
// with one kill(-pgid) and a terminal's Ctrl-C does not reach it directly. Unless detached, the
// child is also killed when the process that started it dies (a crashed or timed-out test binary
// must not leave a broker behind).
func groupAttr(detached bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if !detached {
		attr.Pdeathsig = syscall.SIGKILL
	}
	return attr
}

// signalGroup sends sig to every process of the group led by pid. A group that is already gone is
// not an error.
func signalGroup(pid int, sig syscall.Signal) error {
	if pid <= 0 {
		return fmt.Errorf("signal group: invalid pid %d", pid)
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal group %d with %v: %w", pid, sig, err)
	}
	return nil
}

// ProcessAlive reports whether pid names a live process (a zombie waiting to be reaped is not).
func ProcessAlive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// Format: pid (comm) state ...; comm may contain spaces and parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// groupAlive reports whether any process of the group led by pgid is still alive.
func groupAlive(pgid int) bool {
	if ProcessAlive(pgid) {
		return true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid && ProcessAlive(pid) {
			return true
		}
	}
	return false
}

// IsBrokerProcess reports whether pid is a running Kafka broker started from a command line
// naming kafka.Kafka; it guards against signalling a recycled pid.
func IsBrokerProcess(pid int) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && bytes.Contains(cmdline, []byte("kafka.Kafka")) && ProcessAlive(pid)
}

// StopProcessGroup stops the process group led by pgid that the caller did not start (so cannot
// wait for): SIGTERM, then SIGKILL once grace has passed, returning when no process of the group
// is alive or an error when even SIGKILL did not end it within a few seconds.
func StopProcessGroup(pgid int, grace time.Duration) error {
	if err := signalGroup(pgid, syscall.SIGTERM); err != nil {
		return err
	}
	if waitGroupGone(pgid, grace) {
		return nil
	}
	if err := signalGroup(pgid, syscall.SIGKILL); err != nil {
		return err
	}
	if waitGroupGone(pgid, 10*time.Second) {
		return nil
	}
	return fmt.Errorf("process group %d still alive after SIGKILL", pgid)
}

func waitGroupGone(pgid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if !groupAlive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond) // polling another process's exit: there is no signal to await
	}
}
