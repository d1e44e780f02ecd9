package payapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/internal/signing"
)

// Test card data. Golden files hold placeholders instead (no full card number
// or security code in a snapshot); the comparison restores them, so the sent
// bytes are still checked exactly.
var secrets = []struct{ value, placeholder string }{
	{"4111111111111111", "<PAN-visa>"},
	{"5555555555554444", "<PAN-mc>"},
	{`"security_code":"123"`, `"security_code":"<CVC>"`},
}

func redactSecrets(b []byte) []byte {
	for _, s := range secrets {
		b = bytes.ReplaceAll(b, []byte(s.value), []byte(s.placeholder))
	}
	return b
}

type goldenCase struct {
	name   string
	path   string
	v1Only bool
	call   func(ctx context.Context, c *Client, key CallOption) (any, error)
}

var (
	testPAN    = sensitive.PAN("4111111111111111")
	testCVC    = sensitive.SecurityCode("123")
	testAmount = &Amount{Value: 150000, Currency: "rub"}
	testCust   = &Customer{Reference: "cust-42", Contacts: []Contact{{Email: "buyer@example.com"}}}
	testSender = &ParticipantDetails{Sender: &Sender{FirstName: "Ivan", LastName: "Ivanov", IPv4: "203.0.113.7", PostalCode: "101000"}}
	testRecip  = &ParticipantDetails{Recipient: &Recipient{FullName: "Petrov Petr Petrovich", FirstName: "Petr", LastName: "Petrov", MiddleName: "Petrovich"}}
	testRU     = &Instrument{Type: InstrumentBankAccount, BankAccount: &BankAccount{SystemType: SystemRU,
		RU: &RUAccount{BIC: "044525225", Account: "40817810099910004312", FullName: "Petrov Petr Petrovich", Description: "salary"}}}
)

func goldenCases() []goldenCase {
	return []goldenCase{
		{"create", "session/create", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.CreateSession(ctx, CreateSessionRequest{PayoutInstrument: TokenInstrument("tok_7f3a"),
				PaymentInstrument: CardInstrument(testPAN, "12", "29", testCVC), Amount: testAmount,
				Participants: testSender, Customer: testCust, PaymentOptions: &PaymentOptions{ReturnURL: "https://partner.example.com/return"},
				Metadata: json.RawMessage(`{"order_id":"o-77"}`)}, k)
		}},
		{"init_payment", "session/init/payment", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.InitPayment(ctx, InitPaymentRequest{Instrument: CardInstrument(testPAN, "12", "29", testCVC),
				Amount: testAmount, Customer: testCust, Participants: testSender,
				PaymentOptions: &PaymentOptions{ReturnURL: "https://partner.example.com/return"},
				Metadata:       json.RawMessage(`{"merchant":"","submerchant":"https://shop.example.com"}`)}, k)
		}},
		{"init_payout", "session/init/payout", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.InitPayout(ctx, InitPayoutRequest{Instrument: CardInstrument(testPAN, "12", "29", ""),
				Amount: testAmount, Participants: testRecip, Customer: &Customer{Reference: "cust-43"},
				Metadata: json.RawMessage(`"payroll-2026-11"`)}, k)
		}},
		{"start_payment", "session/start/payment", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.StartPayment(ctx, StartPaymentRequest{SessionID: "ps_1004", Instrument: TokenInstrument("tok_7f3a"),
				Amount: testAmount, Customer: testCust}, k)
		}},
		{"start_payout", "session/start/payout", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.StartPayout(ctx, StartPayoutRequest{SessionID: "ps_1005", Instrument: testRU,
				Amount: &Amount{Value: 2500000, Currency: "rub"}, Metadata: json.RawMessage(`[1,2,3]`)}, k)
		}},
		{"confirm", "session/confirm", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.Confirm(ctx, "ps_1006", k)
		}},
		{"cancel", "session/cancel", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.Cancel(ctx, "ps_1007", k)
		}},
		{"capture", "session/capture", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.Capture(ctx, CaptureRequest{SessionID: "ps_1008", Amount: &Amount{Value: 100000, Currency: "rub"}}, k)
		}},
		{"refund", "session/refund", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.Refund(ctx, RefundRequest{SessionID: "ps_1009", Metadata: json.RawMessage(`{"reason":"return"}`)}, k)
		}},
		{"status", "session/status", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.Status(ctx, "ps_1010", k)
		}},
		{"fps_verification", "fps/customer_verification", false, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.VerifyFPSCustomer(ctx, FPSVerificationRequest{Phone: "79000000000", BankID: "100000000111",
				Recipient: Recipient{FirstName: "Petr", LastName: "Petrov", MiddleName: "Petrovich"}}, k)
		}},
		{"fps_banks", "fps/banks", true, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.FPSBanks(ctx, k)
		}},
		{"recurrent_disable", "recurrent/disable", true, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.DisableRecurring(ctx, "rt_9c1e", k)
		}},
		{"public_token", "token", true, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.PublicToken(ctx, PublicTokenRequest{AcquiringWidget: &AcquiringWidget{SessionID: "ps_1002"}}, k)
		}},
		{"tokenize", "tokenize/elements", true, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.TokenizeCards(ctx, []CardElement{{Ref: "first", CardNumber: testPAN},
				{Ref: "second", Type: "card_number", CardNumber: "5555555555554444"}}, k)
		}},
		{"token_info", "token/info", true, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.TokenInfo(ctx, TokenInfoRequest{Type: "card",
				Card: &Card{EncryptedCard: &EncryptedCard{NumberHash: "9f86d081884c7d65"}}}, k)
		}},
		{"wallet", "wallet/balance", true, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return c.WalletBalance(ctx, time.Date(2026, 11, 23, 13, 0, 0, 123456000, time.FixedZone("MSK", 3*3600)), k)
		}},
		{"bankpay_push", "bankpay/push", true, func(ctx context.Context, c *Client, k CallOption) (any, error) {
			return nil, c.BankPayPush(ctx, "ps_1012", "79000000000", k)
		}},
	}
}

// TestGolden checks, per endpoint and version, the exact bytes sent, the
// path, method and headers, and the parsed result of a representative
// response. v1-only methods must go to /api/v1 and send the v1 bytes even
// from a v2 client. The parsed result must be the same for both versions.
func TestGolden(t *testing.T) {
	verifier := signing.NewRSAVerifier(signing.PKCS1v15, &key(t).PublicKey)
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			parsed := map[int][]byte{}
			for _, v := range []int{1, 2} {
				fixtureVersion := v
				if gc.v1Only {
					fixtureVersion = 1
				}
				dir := "v" + string(rune('0'+fixtureVersion)) + "/"
				fixture := readFixture(t, dir+gc.name+".response.json")
				fake := newFakeService(t, jsonResponse(http.StatusOK, string(fixture)))
				c := newTestClient(t, fake.srv.URL, v)
				idem := "idem-" + gc.name
				res, err := gc.call(context.Background(), c, WithIdempotencyKey(idem))
				if err != nil {
					t.Fatalf("v%d: %v", v, err)
				}
				req := fake.last(t)
				checkRequest(t, req, verifier, "/api/"+dir+gc.path, idem)
				if gc.name == "fps_banks" && (req.Method != http.MethodGet || string(req.Body) != "{}") {
					t.Errorf("fps/banks: %s %q, want GET {}", req.Method, req.Body)
				}
				checkGoldenBody(t, dir+gc.name+".request.golden.json", req.Body, !gc.v1Only || v == 1)
				out, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, '\n')
				if !gc.v1Only || v == 1 {
					golden(t, dir+gc.name+".parsed.golden.json", out)
				}
				parsed[v] = out
			}
			if !bytes.Equal(parsed[1], parsed[2]) {
				t.Errorf("v1 and v2 parse to different models:\nv1: %s\nv2: %s", parsed[1], parsed[2])
			}
		})
	}
}

func checkRequest(t *testing.T, req captured, v signing.Verifier, path, idem string) {
	t.Helper()
	if req.Path != path {
		t.Errorf("path %s, want %s", req.Path, path)
	}
	want := map[string]string{"Content-Type": "application/json", HeaderProject: "proj-1", HeaderIdempotency: idem}
	for h, val := range want {
		if got := req.Header.Get(h); got != val {
			t.Errorf("header %s = %q, want %q", h, got, val)
		}
	}
	if _, ok := req.Header[http.CanonicalHeaderKey(HeaderSubmerchant)]; ok {
		t.Errorf("%s sent although not configured", HeaderSubmerchant)
	}
	if err := v.Verify(req.Body, req.Header.Get(HeaderSign)); err != nil {
		t.Errorf("signature over the sent bytes: %v", err)
	}
}

// checkGoldenBody compares the exact sent bytes with the golden file (whose
// placeholders are restored). write=false only compares (the v1-only methods
// from a v2 client must send the v1 bytes).
func checkGoldenBody(t *testing.T, name string, body []byte, write bool) {
	t.Helper()
	if !json.Valid(body) {
		t.Fatalf("sent body is not JSON: %s", redactSecrets(body))
	}
	if write {
		golden(t, name, append(redactSecrets(body), '\n'))
	}
	want := readFixture(t, name)
	for _, s := range secrets {
		want = bytes.ReplaceAll(want, []byte(s.placeholder), []byte(s.value))
	}
	if got := string(body) + "\n"; got != string(want) {
		t.Errorf("sent bytes differ from %s:\n got: %s\nwant: %s", name, redactSecrets(body), redactSecrets(want))
	}
}
