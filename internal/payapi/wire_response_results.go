package payapi

import (
	"encoding/json"
	"fmt"
)

// Inbound mapping of the results of the v1-only methods.

type wireFPSBank struct {
	ID      string `json:"id"`
	EngName string `json:"eng_name"`
	RuName  string `json:"ru_name"`
}

func decodeBanks(raw json.RawMessage) ([]FPSBank, error) {
	if absent(raw) {
		return nil, errMissingResult
	}
	var ws []wireFPSBank
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("banks: %w", err)
	}
	out := make([]FPSBank, 0, len(ws))
	for _, w := range ws {
		out = append(out, FPSBank{ID: w.ID, EngName: w.EngName, RuName: w.RuName})
	}
	return out, nil
}

// wireRecurrent keeps its times raw: they are secondary timestamps, read
// leniently (see timestamp.go).
type wireRecurrent struct {
	Token      string          `json:"token"`
	CreatedAt  json.RawMessage `json:"created_at"`
	FinishedAt json.RawMessage `json:"finished_at"`
	IsActive   bool            `json:"is_active"`
	Type       string          `json:"type"`
}

// decodeRecurrent reads a recurring token; an unreadable time is left unset
// and its path added to dropped.
func decodeRecurrent(raw json.RawMessage) (*RecurringToken, droppedTimes, error) {
	if absent(raw) {
		return nil, nil, errMissingResult
	}
	var w wireRecurrent
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, nil, fmt.Errorf("recurrent: %w", err)
	}
	var dropped droppedTimes
	return w.model("recurrent.", &dropped), dropped, nil
}

// model maps a recurring token; an unreadable time is left unset and its
// path (below prefix) added to dropped.
func (w *wireRecurrent) model(prefix string, dropped *droppedTimes) *RecurringToken {
	t := &RecurringToken{Token: w.Token, IsActive: w.IsActive, Type: w.Type}
	dropped.readValue(&t.CreatedAt, w.CreatedAt, prefix+"created_at")
	dropped.read(&t.FinishedAt, w.FinishedAt, prefix+"finished_at")
	return t
}

func decodePublicToken(raw json.RawMessage) (string, error) {
	if absent(raw) {
		return "", errMissingResult
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("public_token: %w", err)
	}
	return s, nil
}

type wireCardToken struct {
	Token string `json:"token"`
	Info  *struct {
		MaskedCardNumber string `json:"masked_card_number"`
		CardNetwork      string `json:"card_network"`
		CardType         string `json:"card_type"`
	} `json:"info"`
}

func decodeCardTokens(raw json.RawMessage) (map[string]CardTokenInfo, error) {
	if absent(raw) {
		return nil, errMissingResult
	}
	var ws map[string]wireCardToken
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	out := make(map[string]CardTokenInfo, len(ws))
	for ref, w := range ws {
		ti := CardTokenInfo{Token: w.Token}
		if w.Info != nil {
			// The service sends the number masked; scrub in case it did not.
			ti.MaskedCardNumber = scrubDigits(w.Info.MaskedCardNumber)
			ti.CardNetwork, ti.CardType = w.Info.CardNetwork, w.Info.CardType
		}
		out[ref] = ti
	}
	return out, nil
}

type wireTokenInfoIn struct {
	NumberHash string `json:"number_hash"`
	Brand      string `json:"brand"`
	Last4      string `json:"last4"`
	Type       string `json:"type"`
}

func decodeTokenInfo(raw json.RawMessage) (*TokenInfo, error) {
	if absent(raw) {
		return nil, errMissingResult
	}
	var w wireTokenInfoIn
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("info: %w", err)
	}
	return &TokenInfo{NumberHash: w.NumberHash, Brand: w.Brand, Last4: w.Last4, Type: w.Type,
		Raw: append(json.RawMessage(nil), raw...)}, nil
}

type wireWallet struct {
	ID            string      `json:"id"`
	AmountDetails *wireAmount `json:"amount_details"`
}

func decodeWallets(raw json.RawMessage) ([]Wallet, error) {
	if absent(raw) {
		return nil, errMissingResult
	}
	var ws []wireWallet
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("wallets: %w", err)
	}
	out := make([]Wallet, 0, len(ws))
	for _, w := range ws {
		out = append(out, Wallet{ID: w.ID, Amount: fromWireAmount(w.AmountDetails)})
	}
	return out, nil
}
