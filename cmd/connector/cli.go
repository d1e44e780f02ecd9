package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// cmdLine is the command line of one subcommand, parsed by one convention
// for all of them: -h (or -help, --help) anywhere prints the help on stdout
// and exits 0; flags may come before, between or after the positional
// arguments ("--" ends the flags); a bad flag or a wrong number of
// arguments is one line on stderr naming it, then exit 2.
type cmdLine struct {
	*flag.FlagSet
	name     string // "produce", "topics"
	operands string // the positional arguments in the usage line: "<kind>", "" for none
	about    string // the text between the usage line and the flags
	min, max int    // positional arguments accepted; max < 0: no limit
}

// newCmdLine returns the command line of the subcommand name, taking from
// min to max positional arguments (max < 0: any number) described by
// operands.
func newCmdLine(name, operands, about string, min, max int) *cmdLine {
	fs := flag.NewFlagSet("connector "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &cmdLine{FlagSet: fs, name: name, operands: operands, about: about, min: min, max: max}
}

// usage writes the help: the usage line, the about text and the flags.
func (c *cmdLine) usage(w io.Writer) {
	fmt.Fprintln(w, strings.TrimSpace(fmt.Sprintf("Usage: connector %s [flags] %s", c.name, c.operands)))
	if c.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.about, "\n"))
	}
	n := 0
	c.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		c.SetOutput(w)
		c.PrintDefaults()
		c.SetOutput(io.Discard)
	}
}

// parse parses args with flags anywhere and returns the positional
// arguments. When it returns ok false the command is over: the help was
// printed (code exitOK) or the error was (code exitUsage).
func (c *cmdLine) parse(args []string, stdout, stderr io.Writer) (positional []string, code int, ok bool) {
	rest := args
	for {
		err := c.Parse(rest)
		if errors.Is(err, flag.ErrHelp) {
			c.usage(stdout)
			return nil, exitOK, false
		}
		if err != nil {
			return nil, c.fail(stderr, err.Error()), false
		}
		left := c.Args()
		if len(left) == 0 {
			break
		}
		if consumed := len(rest) - len(left); consumed > 0 && rest[consumed-1] == "--" {
			positional = append(positional, left...) // after "--", no flags
			break
		}
		positional = append(positional, left[0])
		rest = left[1:]
	}
	if len(positional) < c.min || (c.max >= 0 && len(positional) > c.max) {
		return nil, c.fail(stderr, c.wantArgs(positional)), false
	}
	return positional, exitOK, true
}

// wantArgs says what positional arguments the command takes, and what it got.
func (c *cmdLine) wantArgs(got []string) string {
	want := c.operands
	if want == "" {
		want = "no arguments"
	}
	if len(got) == 0 {
		return "want " + want + ", got none"
	}
	return fmt.Sprintf("want %s, got %q", want, got)
}

// fail prints a usage error of the command and returns exitUsage.
func (c *cmdLine) fail(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "connector %s: %s\nRun 'connector %s -h' for help.\n", c.name, msg, c.name)
	return exitUsage
}
