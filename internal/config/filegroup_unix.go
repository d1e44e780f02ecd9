//go:build unix

package config

import (
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// inOwnGroup reports whether the file's group is this process's group or
// one of its supplementary groups (a pod's fsGroup).
func inOwnGroup(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	gid := int(sys.Gid)
	if gid == os.Getgid() {
		return true
	}
	groups, err := os.Getgroups()
	return err == nil && slices.Contains(groups, gid)
}
