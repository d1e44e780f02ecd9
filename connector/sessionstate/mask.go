package sessionstate

import (
	"encoding/json"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

// freeText masks card data in text the service sent back: a card number
// keeps bin and last4, a security code after its name ("cvv 321",
// `"security_code":"999"`) becomes "***" (sensitive.MaskText, the one
// matcher). The service copies a command's free text into its answers, and
// a command that holds card data there is refused before it is sent
// (codec's validation), but the answer is the service's and is masked
// whatever it holds.
func freeText(s string) string { return sensitive.MaskText(s) }

func maskedMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[freeText(k)] = freeText(v)
	}
	return out
}

// metadata returns operation metadata as a session state publishes it:
// compacted, masked as a dead letter masks a JSON value (codec.Metadata's
// Masked); nil when absent or not JSON.
func metadata(raw json.RawMessage) *codec.Metadata {
	if len(raw) == 0 {
		return nil
	}
	m, err := codec.NewMetadata(raw)
	if err != nil {
		return nil
	}
	if m = m.Masked(); m == "" {
		return nil
	}
	return &m
}

// summarize masks an instrument: a card becomes its type, bin, last4 and
// brand; a bank account its system type, masked account and FPS bank id.
// Unknown instrument types keep only their type name.
func summarize(in *payapi.Instrument) *codec.InstrumentSummary {
	if in == nil {
		return nil
	}
	out := &codec.InstrumentSummary{Type: freeText(in.Type)}
	if c := in.Card; c != nil {
		out.CardType = optString(freeText(c.Type))
		bin, last4 := c.BIN, c.Last4
		if bc := c.BankCard; bc != nil && bc.Number != "" {
			if bin == "" {
				bin = bc.Number.BIN()
			}
			if last4 == "" {
				last4 = bc.Number.Last4()
			}
		}
		out.CardBIN, out.CardLast4, out.CardBrand = optString(onlyDigits(bin, 8)), optString(onlyDigits(last4, 4)), optString(freeText(c.Brand))
	}
	if ba := in.BankAccount; ba != nil {
		out.BankSystemType = optString(freeText(ba.SystemType))
		if ba.RU != nil {
			out.AccountMasked = optString(codec.MaskAccount(ba.RU.Account))
		}
		if ba.FPS != nil {
			out.BankID = optString(ba.FPS.BankID)
		}
	}
	return out
}

// onlyDigits keeps s when it is at most max digits, so a field that the
// service (or a bug) filled with a full number never passes through.
func onlyDigits(s string, max int) string {
	if len(s) > max {
		return ""
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return s
}
