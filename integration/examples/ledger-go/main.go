package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/paysession/paysession/connector/kit"
)

func main() {
	brokers := flag.String("brokers", "localhost:9092", "comma-separated Kafka brokers")
	registry := flag.String("registry", "", "schema registry (Confluent API) URL, when the connector uses one")
	group := flag.String("group", "ledger", "consumer group")
	results := flag.String("results", kit.DefaultTopics().CommandResults, "command results topic")
	sessions := flag.String("sessions", kit.DefaultTopics().Sessions, "sessions topic")
	webhooks := flag.String("webhook-events", kit.DefaultTopics().WebhookEvents, "webhook events topic")
	idle := flag.Duration("idle", 10*time.Second, "stop after this long without a record")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	topics := kit.DefaultTopics()
	topics.CommandResults, topics.Sessions, topics.WebhookEvents = *results, *sessions, *webhooks
	c, err := NewConsumer(Config{Brokers: strings.Split(*brokers, ","), Registry: *registry, Group: *group, Topics: topics})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ledger:", err)
		os.Exit(2)
	}
	defer c.Close()
	l := NewLedger()
	for {
		pctx, cancel := context.WithTimeout(ctx, *idle)
		n, err := c.Poll(pctx, l)
		cancel()
		if err != nil && ctx.Err() == nil && pctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "ledger:", err)
			os.Exit(1)
		}
		if n == 0 {
			break
		}
	}
	out := json.NewEncoder(os.Stdout)
	for _, e := range l.Entries() {
		_ = out.Encode(e)
	}
}
