package codec

import (
	"strings"

	"github.com/paysession/paysession/internal/sensitive"
)

// MaskAccount returns an account number with every character but the last
// four replaced by '*'. Values of four characters or fewer are fully masked.
// Already-masked values (as webhooks carry them) stay masked. It counts
// characters, not bytes, so the result is valid UTF-8 whatever the input.
func MaskAccount(account string) string {
	r := []rune(account)
	if len(r) <= 4 {
		return strings.Repeat("*", len(r))
	}
	return strings.Repeat("*", len(r)-4) + string(r[len(r)-4:])
}

// SummarizeInstrument returns the masked summary of a command instrument:
// card type, bin, last4 (no brand: commands do not carry it), or bank system
// type with the account masked. It returns nil for nil.
func SummarizeInstrument(in *Instrument) *InstrumentSummary {
	if in == nil {
		return nil
	}
	s := &InstrumentSummary{Type: in.Type}
	if c := in.Card; c != nil {
		s.CardType = nonEmpty(c.Type)
		if c.BankCard != nil {
			s.CardBIN = nonEmpty(c.BankCard.Number.BIN())
			s.CardLast4 = nonEmpty(c.BankCard.Number.Last4())
		}
	}
	if a := in.BankAccount; a != nil {
		s.BankSystemType = nonEmpty(a.SystemType)
		if a.RU != nil {
			s.AccountMasked = nonEmpty(MaskAccount(a.RU.Account))
		}
		if a.FPS != nil {
			s.BankID = nonEmpty(a.FPS.BankID)
		}
	}
	return s
}

// CardSummary returns the masked summary of a card known by its full number
// (only bin and last4 are kept) plus the brand when known.
func CardSummary(cardType string, pan sensitive.PAN, brand string) *InstrumentSummary {
	return &InstrumentSummary{
		Type:      InstrumentCard,
		CardType:  nonEmpty(cardType),
		CardBIN:   nonEmpty(pan.BIN()),
		CardLast4: nonEmpty(pan.Last4()),
		CardBrand: nonEmpty(brand),
	}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
