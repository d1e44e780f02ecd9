package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/paysession/paysession/internal/signing"
)

// version and revision are set at link time by the image build
// (cmd/connector/Dockerfile) and `make build`: -X main.version=...
// -X main.revision=...
// Without them, revision falls back to the VCS revision go build stamps
// (absent under -buildvcs=false).
var (
	version  = "dev"
	revision = ""
)

// buildRevision returns revision, else the stamped VCS revision (with
// "-dirty" for a modified tree), else "unknown".
func buildRevision() string {
	if revision != "" {
		return revision
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// printVersion is `connector --version`: the version, the revision, the Go
// version and the engine of the request signer the build compiled in
// (signing.DefaultEngine: libcrypto with -tags libcrypto, else go).
func printVersion(args []string, stdout, stderr io.Writer) int {
	fs := newCmdLine("version", "", "Prints the version, the revision, the Go version and the signer engine (go or libcrypto) of this binary.", 0, 0)
	if _, code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	fmt.Fprintf(stdout, "connector %s (revision %s, %s, signer %s)\n", version, buildRevision(), runtime.Version(), signing.DefaultEngine)
	return exitOK
}
