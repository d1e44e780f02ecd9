package sessionstate

import (
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// summarize masks an instrument: a card becomes its type, bin, last4 and
// brand; a bank account its system type, masked account and FPS bank id.
// Unknown instrument types keep only their type name.
func summarize(in *payapi.Instrument) *codec.InstrumentSummary {
	if in == nil {
		return nil
	}
	out := &codec.InstrumentSummary{Type: in.Type}
	if c := in.Card; c != nil {
		out.CardType = optString(c.Type)
		bin, last4 := c.BIN, c.Last4
		if bc := c.BankCard; bc != nil && bc.Number != "" {
			if bin == "" {
				bin = bc.Number.BIN()
			}
			if last4 == "" {
				last4 = bc.Number.Last4()
			}
		}
		out.CardBIN, out.CardLast4, out.CardBrand = optString(onlyDigits(bin, 8)), optString(onlyDigits(last4, 4)), optString(c.Brand)
	}
	if ba := in.BankAccount; ba != nil {
		out.BankSystemType = optString(ba.SystemType)
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
