// Command connector runs the paysession connector: payment commands from
// Kafka executed against the Payment Session Service, outcomes published
// as Avro events.
//
//	connector run       production: configuration from PAYSESSION_* variables
//	connector demo      the whole system in one process, printing outcome events
//	connector config    print the effective configuration, secrets redacted
//	connector check     check everything run needs, one line per problem
//	connector redrive   re-publish dead-letter records to their source topics
//	connector inspect   dead letters grouped by error code and field
//	connector produce   write JSON commands from stdin to a command topic
//	connector tail      print an outcome or dead-letter topic as JSON lines
//	connector lookup    print what the topics hold of one command
//	connector topics    plan, apply or verify the Kafka topics of the configuration
//	connector status    each replica's /status from its ops port, as a table
//	connector --version print the version, revision and Go version
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}
