package payapi

import (
	"context"
	"time"
)

// Methods shown only under /api/v1: they always use /api/v1, whatever the
// client's version.

var (
	epFPSBanks    = endpoint{path: "fps/banks", get: true, v1Only: true}
	epRecurrent   = endpoint{path: "recurrent/disable", v1Only: true}
	epPublicToken = endpoint{path: "token", v1Only: true}
	epTokenize    = endpoint{path: "tokenize/elements", v1Only: true}
	epTokenInfo   = endpoint{path: "token/info", v1Only: true}
	epWallet      = endpoint{path: "wallet/balance", v1Only: true}
	epBankPush    = endpoint{path: "bankpay/push", v1Only: true}
)

// FPSBanks lists the banks of the Faster Payment System (a GET with an empty
// JSON object body).
func (c *Client) FPSBanks(ctx context.Context, opts ...CallOption) ([]FPSBank, error) {
	env, err := c.call(ctx, epFPSBanks, struct{}{}, opts)
	if err != nil {
		return nil, err
	}
	v, err := decodeBanks(env.Banks)
	return result(epFPSBanks, env, v, err)
}

// DisableRecurring disables a recurring-payment token.
func (c *Client) DisableRecurring(ctx context.Context, token string, opts ...CallOption) (*RecurringToken, error) {
	var w wireRecurrentDisable
	w.Recurrent.Token = token
	env, err := c.call(ctx, epRecurrent, &w, opts)
	if err != nil {
		return nil, err
	}
	v, dropped, err := decodeRecurrent(env.Recurrent)
	c.logDropped(ctx, epRecurrent, dropped)
	return result(epRecurrent, env, v, err)
}

// PublicToken creates a public token for the browser library and widgets.
func (c *Client) PublicToken(ctx context.Context, r PublicTokenRequest, opts ...CallOption) (string, error) {
	env, err := c.call(ctx, epPublicToken, wirePublicToken(r), opts)
	if err != nil {
		return "", err
	}
	v, err := decodePublicToken(env.PublicToken)
	return result(epPublicToken, env, v, err)
}

// TokenizeCards tokenizes card numbers; the result is keyed by CardElement.Ref.
func (c *Client) TokenizeCards(ctx context.Context, els []CardElement, opts ...CallOption) (map[string]CardTokenInfo, error) {
	env, err := c.call(ctx, epTokenize, wireTokenize(els), opts)
	if err != nil {
		return nil, err
	}
	v, err := decodeCardTokens(env.Data)
	return result(epTokenize, env, v, err)
}

// TokenInfo returns information about a card hash or a token.
func (c *Client) TokenInfo(ctx context.Context, r TokenInfoRequest, opts ...CallOption) (*TokenInfo, error) {
	env, err := c.call(ctx, epTokenInfo, wireTokenInfo(r), opts)
	if err != nil {
		return nil, err
	}
	v, err := decodeTokenInfo(env.Info)
	return result(epTokenInfo, env, v, err)
}

// WalletBalance returns the payout deposit balances; at is the current time
// of the request (request_datetime).
func (c *Client) WalletBalance(ctx context.Context, at time.Time, opts ...CallOption) ([]Wallet, error) {
	env, err := c.call(ctx, epWallet, wireWalletRequest{RequestDatetime: formatTime(at)}, opts)
	if err != nil {
		return nil, err
	}
	v, err := decodeWallets(env.Wallets)
	return result(epWallet, env, v, err)
}

// BankPayPush asks for a payment-status push of a bank-app payment.
func (c *Client) BankPayPush(ctx context.Context, sessionID, phone string, opts ...CallOption) error {
	_, err := c.call(ctx, epBankPush, wireBankPushRequest{SessionID: sessionID, Phone: phone}, opts)
	return err
}

// result turns a decode failure into a malformed_response *Error, so a
// method never returns both a value and an error.
func result[T any](ep endpoint, env *envelope, v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, decodeError(ep, env.httpStatus, err)
	}
	return v, nil
}
