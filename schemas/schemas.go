// Package schemas holds the Avro contract of the connector: one .avsc file per
// command kind (what upstream systems write to the command topics) and one per
// outcome record (what the connector publishes). The files are embedded in the
// binary; internal/codec parses them, and tests check every change against the
// released versions kept under history/<name>/v<N>.avsc.
//
// The .avsc files are generated: each is composed from source/<name>.avsc, its
// root record, and source/types/<Name>.avsc, one file per named type the
// schemas share (Session, Instrument, Recipient...), written once. Edit the
// sources and run go generate ./schemas; a test keeps the files equal to the
// composition byte for byte.
package schemas

//go:generate go test -run TestFilesAreComposedFromSource -update

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Name is the name of a schema: the .avsc file name without its extension.
// Command schemas are named after their command kind (package codec).
type Name string

// Outcome schemas.
const (
	CommandResult Name = "command_result"
	SessionState  Name = "session_state"
	WebhookEvent  Name = "webhook_event"
	DeadLetter    Name = "dead_letter"
	WalletBalance Name = "wallet_balance"
	FPSBanks      Name = "fps_banks"
)

// Commands lists the command schemas, one per command kind: the symbols of
// the CommandKind enum of command_result.avsc, in their order. A new kind
// is a symbol there and a file <kind>.avsc beside it.
var Commands = commandKinds()

// Outcomes lists the outcome schemas in a stable order.
var Outcomes = []Name{CommandResult, SessionState, WebhookEvent, DeadLetter, WalletBalance, FPSBanks}

//go:embed *.avsc
var current embed.FS

//go:embed history
var history embed.FS

// All returns every schema name, commands first.
func All() []Name {
	return append(append([]Name(nil), Commands...), Outcomes...)
}

// Get returns the current text of the named schema.
func Get(n Name) (string, error) {
	b, err := current.ReadFile(string(n) + ".avsc")
	if err != nil {
		return "", fmt.Errorf("schema %q: %w", n, fs.ErrNotExist)
	}
	return string(b), nil
}

// MustGet is Get for names known at compile time; it panics on an unknown name.
func MustGet(n Name) string {
	s, err := Get(n)
	if err != nil {
		panic(err)
	}
	return s
}

// Version is one released version of a schema.
type Version struct {
	Version int
	Text    string
}

// History returns the released versions of the named schema, oldest first.
// The last one is the version currently released; the current file may be
// ahead of it while a change is under review.
func History(n Name) ([]Version, error) {
	dir := path.Join("history", string(n))
	entries, err := history.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("schema history %q: %w", n, fs.ErrNotExist)
	}
	var out []Version
	for _, e := range entries {
		v, ok := parseVersionFile(e.Name())
		if !ok {
			continue
		}
		b, err := history.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("schema history %q: %w", n, err)
		}
		out = append(out, Version{Version: v, Text: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// commandKinds reads the symbols of the CommandKind enum, the type of the
// field kind of command_result.avsc.
func commandKinds() []Name {
	var record struct {
		Fields []struct {
			Name string
			Type json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(MustGet(CommandResult)), &record); err != nil {
		panic(fmt.Sprintf("schemas: %s.avsc: %v", CommandResult, err))
	}
	for _, f := range record.Fields {
		var enum struct{ Symbols []Name }
		if f.Name == "kind" && json.Unmarshal(f.Type, &enum) == nil && len(enum.Symbols) > 0 {
			return enum.Symbols
		}
	}
	panic(fmt.Sprintf("schemas: %s.avsc has no field kind of an enum type", CommandResult))
}

func parseVersionFile(name string) (int, bool) {
	if !strings.HasPrefix(name, "v") || !strings.HasSuffix(name, ".avsc") {
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "v"), ".avsc"))
	return v, err == nil && v > 0
}
