package main

import (
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/kafka"
)

// kafkaClient builds a client of the configured Kafka connection, with
// extra options, for the subcommand cmd. On failure it says why on stderr
// and returns the exit code: exitUsage for a connection the configuration
// cannot describe (a CA file that does not load), exitFailed otherwise.
func kafkaClient(cmd string, k config.Kafka, stderr io.Writer, extra ...kgo.Opt) (*kgo.Client, int) {
	opts, err := kafka.ClientOpts(k)
	if err != nil {
		fmt.Fprintf(stderr, "connector %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		fmt.Fprintf(stderr, "connector %s: %v\n", cmd, err)
		return nil, exitFailed
	}
	return cl, exitOK
}
