// Command paysim runs the sandbox of the Payment Session Service: every
// endpoint of the spec under /api/v1 and /api/v2, signed webhooks, admin
// endpoints for time and faults. See `paysim --help`.
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
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
