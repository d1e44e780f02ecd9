package paysim_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

// Embedding the sandbox in a test: a fake clock, one project, the handler on
// an httptest server; Advance moves time, WaitIdle awaits webhooks.
func Example() {
	partner, _ := signing.GenerateKey(2048)
	service, _ := signing.GenerateKey(2048)
	clock := paysim.NewFakeClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	sim, err := paysim.New(paysim.Config{
		Clock:      clock,
		Projects:   []paysim.Project{paysim.DevProject("shop", &partner.PublicKey, "")},
		ServiceKey: service,
	})
	if err != nil {
		panic(err)
	}
	defer sim.Close()
	ts := httptest.NewServer(sim.Handler())
	defer ts.Close()
	// ... point payapi.Config{BaseURL: ts.URL, Project: "shop", Signer: ...} at it ...
	sim.Advance(time.Hour)
	_ = sim.WaitIdle(context.Background())
	fmt.Println(sim.Now().Format(time.RFC3339), len(sim.Ledger("")))
	// Output: 2026-11-23T11:00:00Z 0
}
