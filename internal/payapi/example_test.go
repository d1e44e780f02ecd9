package payapi_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/signing"
)

func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"status":"error","error":{"code":"invalid_request","description":"amount_details.amount.positive"}}`)
	}))
	defer srv.Close()
	k, _ := signing.GenerateKey(1024) // tests only; use signing.LoadPrivateKey in production
	c, err := payapi.New(payapi.Config{
		BaseURL: srv.URL, Version: 2, Project: "proj-1",
		Signer: signing.NewRSASigner(k, signing.PKCS1v15),
		Logger: slog.Default(),
	})
	if err != nil {
		panic(err)
	}
	_, err = c.InitPayout(context.Background(), payapi.InitPayoutRequest{
		Instrument: payapi.TokenInstrument("tok_1"),
		Amount:     &payapi.Amount{Value: 0, Currency: "rub"},
	}, payapi.WithIdempotencyKey("payout-2026-11-23-0001"))
	var apiErr *payapi.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Code, apiErr.Field, apiErr.Rule, "retryable:", apiErr.Retryable)
	}
	// Output: invalid_request amount_details.amount positive retryable: false
}
