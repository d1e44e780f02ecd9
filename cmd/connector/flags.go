package main

import (
	"flag"
	"io"
)

func newFlagSet(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("connector "+name, flag.ContinueOnError)
	fs.SetOutput(out)
	return fs
}
