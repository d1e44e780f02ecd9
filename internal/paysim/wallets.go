package paysim

import (
	"sort"
	"time"
)

// Wallets (wallet/balance), the FPS bank list (fps/banks) and the bank-app
// push (bankpay/push). All v1 only.

// FPSBanks is the sandbox's FPS bank list; bank_id must be one of these ids.
var FPSBanks = []struct {
	ID      string `json:"id"`
	EngName string `json:"eng_name"`
	RuName  string `json:"ru_name"`
}{
	{"100000000111", "Sberbank", "Сбербанк"},
	{"100000000004", "T-Bank", "Т-Банк"},
	{"100000000008", "Alfa-Bank", "Альфа-Банк"},
	{"100000000005", "VTB", "ВТБ"},
}

func knownBank(id string) bool {
	for _, b := range FPSBanks {
		if b.ID == id {
			return true
		}
	}
	return false
}

// balance is the wallet of currency, opened lazily. Callers hold s.mu.
func (s *Server) balance(p *projectState, currency string) int64 {
	if v, ok := p.wallets[currency]; ok {
		return v
	}
	p.wallets[currency] = p.WalletBalance
	return p.WalletBalance
}

// Wallet is a project's deposit balance in one currency.
type Wallet struct {
	ID       string `json:"id"`
	Currency string `json:"currency"`
	Amount   int64  `json:"amount"`
}

// Wallets returns the project's wallets (rub always present), by currency.
func (s *Server) Wallets(project string) []Wallet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.walletsLocked(project)
}

func (s *Server) walletsLocked(project string) []Wallet {
	p := s.projects[project]
	if p == nil {
		return nil
	}
	s.balance(p, "rub")
	var out []Wallet
	for cur, v := range p.wallets {
		out = append(out, Wallet{ID: "w_" + p.ID + "_" + cur, Currency: cur, Amount: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out
}

func (s *Server) walletBalance(c *call) (map[string]any, error) {
	at, err := c.body.str("request_datetime", true)
	if err != nil {
		return nil, err
	}
	if _, err := time.Parse(time.RFC3339Nano, at); err != nil {
		return nil, invalid("request_datetime", "format")
	}
	ws := s.walletsLocked(c.project.ID)
	out := make([]map[string]any, len(ws))
	for i, w := range ws {
		out[i] = map[string]any{"id": w.ID, "amount_details": wireAmount{Amount: w.Amount, Currency: w.Currency}}
	}
	return map[string]any{"wallets": out}, nil
}

func (s *Server) fpsBanks(c *call) (map[string]any, error) {
	return map[string]any{"banks": FPSBanks}, nil
}

func (s *Server) bankPayPush(c *call) (map[string]any, error) {
	if _, err := c.lookup(); err != nil {
		return nil, err
	}
	if _, err := c.body.match("phone", true, reDigits, "digits"); err != nil {
		return nil, err
	}
	s.log.Info("paysim bankpay push", "session_id", c.sessionID)
	return nil, nil
}
