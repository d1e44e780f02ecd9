package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// statePaths are where kafkad keeps what it knows between runs.
type statePaths struct {
	state string // key=value file describing the running broker
	run   string // the broker's directory (configuration, data, log)
}

// state describes a broker started by kafkad up.
type state struct {
	addr string
	pid  int
	dir  string
	log  string
}

func writeState(path string, st state) error {
	body := fmt.Sprintf("addr=%s\npid=%d\ndir=%s\nlog=%s\n", st.addr, st.pid, st.dir, st.log)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}

func readState(path string) (state, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return state{}, fmt.Errorf("read state: %w", err)
	}
	st, err := parseState(b)
	if err != nil {
		return state{}, fmt.Errorf("read state %s: %w", path, err)
	}
	return st, nil
}

// parseState reads the key=value lines that writeState writes; unknown keys are ignored.
func parseState(b []byte) (state, error) {
	var st state
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "addr":
			st.addr = v
		case "pid":
			pid, err := strconv.Atoi(v)
			if err != nil || pid <= 0 {
				return state{}, fmt.Errorf("pid %q is not a process id", v)
			}
			st.pid = pid
		case "dir":
			st.dir = v
		case "log":
			st.log = v
		}
	}
	if err := sc.Err(); err != nil {
		return state{}, err
	}
	if st.addr == "" || st.pid == 0 {
		return state{}, fmt.Errorf("incomplete state: addr=%q pid=%d", st.addr, st.pid)
	}
	return st, nil
}
