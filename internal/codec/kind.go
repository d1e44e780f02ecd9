package codec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paysession/paysession/schemas"
)

// CommandKind names a command; it is also a symbol of the Avro enum
// CommandKind and the name of the command's schema.
type CommandKind string

// A command kind is one unit: the file kind_<kind>.go holds its constant,
// its struct, its session reference, route, schema name and validation,
// and registers the kind here; the schemas package holds its .avsc and
// names it in the CommandKind enum of command_result.avsc. Everything else
// that lists the kinds (the configuration's topic variables, the kit's
// names, the chart's topics, the AsyncAPI document) is generated from
// Kinds or checked against it by a test.

// registry holds a constructor of every registered kind.
var registry = map[CommandKind]func() Command{}

// register adds the kind of the commands newCmd makes. It panics when the
// kind is registered twice or is not a symbol of the CommandKind enum: a
// program with an incomplete contract must not start.
func register(newCmd func() Command) {
	k := newCmd().Kind()
	if _, dup := registry[k]; dup {
		panic(fmt.Sprintf("codec: command kind %s registered twice", k))
	}
	if !slices.Contains(schemas.Commands, k.SchemaName()) {
		panic(fmt.Sprintf("codec: command kind %s is not in the CommandKind enum of %s.avsc", k, schemas.CommandResult))
	}
	registry[k] = newCmd
}

// Kinds returns every command kind, in the order of the CommandKind enum.
func Kinds() []CommandKind {
	out := make([]CommandKind, 0, len(schemas.Commands))
	for _, n := range schemas.Commands {
		out = append(out, CommandKind(n))
	}
	return out
}

// ParseKind returns the command kind named s.
func ParseKind(s string) (CommandKind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown command kind %q", s)
}

// SchemaName returns the name of the kind's schema in package schemas.
func (k CommandKind) SchemaName() schemas.Name { return schemas.Name(k) }

// DefaultTopic returns the default command topic of the kind,
// payments.commands.<kind with - instead of _>.
func (k CommandKind) DefaultTopic() string {
	return "payments.commands." + strings.ReplaceAll(string(k), "_", "-")
}

// New returns a new zero command of the kind, or nil for an unknown kind.
func (k CommandKind) New() Command {
	if newCmd, ok := registry[k]; ok {
		return newCmd()
	}
	return nil
}
