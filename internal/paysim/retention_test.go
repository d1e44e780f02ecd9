package paysim

import (
	"fmt"
	"testing"
)

func TestSessionsBounded(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxSessions = 10; c.Projects[0].WebhookURL = "" })
	// A held payment never settles on its own: it must survive eviction.
	held := e.call("v1", "session/init/payment", paymentBody(CardHold, 100), "").session()["id"].(string)
	e.idle()
	for i := range 50 {
		e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, int64(100+i)), fmt.Sprintf("key-%d", i))
		e.idle()
	}
	if n := e.srv.Sessions(); n > 11 {
		t.Fatalf("%d sessions held, cap 10", n)
	}
	if e.status(held) == nil {
		t.Fatal("unsettled session evicted")
	}
}
