package paysim

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Test cards (all Luhn-valid). Any other valid card number succeeds.
const (
	CardSuccess         = "4111111111111111" // payment/payout succeeds
	CardDeclined        = "4000000000000002" // operation canceled, payment_finished
	Card3DS             = "4000000000003220" // payments: action_required with a GET redirect
	Card3DSPost         = "4000000000003063" // payments: action_required with a POST redirect carrying PaReq, MD and TermUrl form parameters
	CardHold            = "5555555555554444" // payments: ready_to_capture (delayed capture)
	CardRequiresConfirm = "4000000000000259" // ready_to_confirm even without a project rule
)

// FPS test phones.
const (
	PhoneFPSFound    = "79000000000" // recipient registered: success
	PhoneFPSNotFound = "79999999999" // not registered: session canceled
)

// cardBehaviour is what a card number makes the sandbox do.
type cardBehaviour int

const (
	behaveSucceed cardBehaviour = iota
	behaveDecline
	behave3DS
	behave3DSPost
	behaveHold
	behaveConfirm
)

func behaviourOf(pan string) cardBehaviour {
	switch pan {
	case CardDeclined:
		return behaveDecline
	case Card3DS:
		return behave3DS
	case Card3DSPost:
		return behave3DSPost
	case CardHold:
		return behaveHold
	case CardRequiresConfirm:
		return behaveConfirm
	}
	return behaveSucceed
}

type cardFacts struct{ bin, last4, brand, country string }

func cardInfo(pan string) cardFacts {
	f := cardFacts{brand: "unknown", country: "USA"}
	if len(pan) >= 10 {
		f.bin, f.last4 = pan[:6], pan[len(pan)-4:]
	}
	switch {
	case strings.HasPrefix(pan, "220"):
		f.brand, f.country = "mir", "RUS"
	case strings.HasPrefix(pan, "4"):
		f.brand = "visa"
	case strings.HasPrefix(pan, "5"), strings.HasPrefix(pan, "2"):
		f.brand = "mastercard"
	case strings.HasPrefix(pan, "34"), strings.HasPrefix(pan, "37"):
		f.brand = "amex"
	}
	return f
}

// maskPAN shows bin and last4 only.
func maskPAN(pan string) string {
	if len(pan) < 10 {
		return strings.Repeat("*", len(pan))
	}
	return pan[:6] + strings.Repeat("*", len(pan)-10) + pan[len(pan)-4:]
}

// numberHash is the card's number_hash (hex SHA-256 of the number).
func numberHash(pan string) string {
	h := sha256.Sum256([]byte(pan))
	return hex.EncodeToString(h[:])
}
