// Package outbound declares the two parts through which the connector's
// writers put outcome records on Kafka: an Encoder for the values (every
// writer: pipeline, session writer, webhook ingress, reconciler, publishers)
// and a Producer for the writers outside a transaction (ingress, reconciler,
// publishers). Each has one implementation in the product, *codec.Encoder
// and the connector's shared producer; tests give JSON, failing or holding
// fakes.
package outbound

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// Encoder encodes an outcome record (command result, session state, webhook
// event, dead letter, wallet balances, bank list) as the value of a record
// of topic. *codec.Encoder implements it.
type Encoder interface {
	Encode(ctx context.Context, topic string, rec codec.Record) ([]byte, error)
}

// Producer is the connector's plain producer: a non-transactional client
// with acks=all and idempotence (franz-go's defaults). *kgo.Client
// implements it, and so does the connector's producer that rebuilds its
// client when a topic is recreated.
type Producer interface {
	// TryProduce never blocks: a full buffer fails the record at once with
	// kgo.ErrMaxBuffered, so a long Kafka outage turns into quick failures
	// (503s, failed polls) instead of blocked callers. The webhook ingress
	// and the reconciler produce with it.
	TryProduce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error))
	// ProduceSync produces rs and waits for their acknowledgements; the
	// publishers produce with it.
	ProduceSync(ctx context.Context, rs ...*kgo.Record) kgo.ProduceResults
}

var (
	_ Encoder  = (*codec.Encoder)(nil)
	_ Producer = (*kgo.Client)(nil)
)
