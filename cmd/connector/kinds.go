package main

import (
	"fmt"
	"strings"

	"github.com/paysession/paysession/connector/kit"
)

// parseKind reads a command kind as an operator types it: its name
// (init_payout) or its spelling in the default topic names (init-payout).
// The error lists every kind.
func parseKind(s string) (kit.CommandKind, error) {
	k, err := kit.ParseKind(strings.ReplaceAll(s, "-", "_"))
	if err != nil {
		return "", fmt.Errorf("unknown command kind %q; the kinds are %s", s, kindList())
	}
	return k, nil
}

// kindList is every command kind, comma-separated.
func kindList() string {
	var names []string
	for _, k := range kit.Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// kindsHelp is the paragraph of a help naming the kinds.
func kindsHelp() string {
	return "Kinds (- or _ between words): " + kindList() + "."
}
