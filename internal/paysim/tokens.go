package paysim

import (
	"net/http"
	"time"
)

// Recurring tokens (recurrent/disable), public tokens (token), card
// tokenization (tokenize/elements) and token/info. All v1 only.

// disabledAt is the finished_at a disabled recurring token shows.
var disabledAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func (s *Server) disableRecurrent(c *call) (map[string]any, error) {
	r, _, err := c.body.object("recurrent", true)
	if err != nil {
		return nil, err
	}
	tok, err := r.str("token", true)
	if err != nil {
		return nil, err
	}
	t := s.recurrent[tok]
	if t == nil || t.Project != c.project.ID { // only payouts use tokens across projects
		return nil, recordNotFound()
	}
	t.Active, t.FinishedAt = false, disabledAt
	// The payment that issued the token shows it disabled: its session
	// changed (invented: the spec does not say where a payment's token shows).
	if sess := s.sessions[t.SessionID]; sess != nil {
		sess.UpdatedAt = c.now
	}
	return map[string]any{"recurrent": renderRecurrent(t)}, nil
}

func (s *Server) publicTokenCreate(c *call) (map[string]any, error) {
	var widget, sessionID string
	for _, name := range []string{"tokenize_widget", "acquiring_widget", "fps_no_account_widget"} {
		o, ok, err := c.body.object(name, false)
		if err != nil {
			return nil, err
		}
		if !ok || widget != "" {
			continue
		}
		widget = name
		if name == "acquiring_widget" {
			if sessionID, err = o.str("session_id", true); err != nil {
				return nil, err
			}
			if sess := s.sessions[sessionID]; sess == nil || sess.Project != c.project.ID {
				return nil, recordNotFound()
			}
		}
	}
	// Every widget member is optional in the spec: a request with none gets
	// a token for no particular widget (invented: the spec does not say).
	t := &publicToken{Token: "pt_" + s.dice.hex(32), Project: c.project.ID, Widget: widget, SessionID: sessionID, CreatedAt: c.now}
	s.public[t.Token] = t
	return map[string]any{"public_token": t.Token}, nil
}

// UsePublicToken is what a widget does with a public token: one operation
// within 24 hours. Served at POST /sandbox/widget?public_token=... too.
func (s *Server) UsePublicToken(token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.public[token]
	switch {
	case t == nil:
		return invalid("public_token", "unknown")
	case s.Now().Sub(t.CreatedAt) >= PublicTokenTTL:
		return invalid("public_token", "expired")
	case t.Used:
		return invalid("public_token", "used")
	}
	t.Used = true
	return nil
}

func (s *Server) serveWidget(w http.ResponseWriter, r *http.Request) {
	if err := s.UsePublicToken(r.FormValue("public_token")); err != nil {
		writeError(w, err)
		return
	}
	writeRaw(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

func (s *Server) tokenizeElements(c *call) (map[string]any, error) {
	if !c.project.TokenizeEnabled {
		return nil, &apiError{HTTP: http.StatusForbidden, Code: CodeForbidden, Description: "tokenize/elements.not_enabled"}
	}
	elems, err := c.body.array("card_elements", true)
	if err != nil {
		return nil, err
	}
	data := map[string]any{}
	refs := map[string]bool{}
	for i, v := range elems {
		path := "card_elements." + itoa(i)
		m, ok := v.(map[string]any)
		if !ok {
			return nil, invalid(path, "type")
		}
		f := fields{path: path, m: m}
		ref, err := f.str("ref", true)
		if err != nil {
			return nil, err
		}
		if refs[ref] { // the spec's example of a rule: a non-unique value
			return nil, invalid(f.sub("ref"), "non_unique")
		}
		refs[ref] = true
		if typ, err := f.str("type", true); err != nil {
			return nil, err
		} else if typ != "card_number" {
			return nil, invalid(f.sub("type"), "inclusion")
		}
		pan, err := f.match("card_number", true, reDigits, "digits")
		if err != nil {
			return nil, err
		}
		if !luhnValid(pan) || len(pan) < 12 {
			return nil, invalid(f.sub("card_number"), "luhn")
		}
		tok := "ct_" + numberHash("ct:" + pan)[:32] // one token per card: bounded
		s.cardToken[tok] = pan
		s.cards[numberHash(pan)] = pan
		info := cardInfo(pan)
		data[ref] = map[string]any{"token": tok, "info": map[string]string{
			"masked_card_number": maskPAN(pan), "card_network": info.brand, "card_type": "debit"}}
	}
	return map[string]any{"data": data}, nil
}

func (s *Server) tokenInfo(c *call) (map[string]any, error) {
	typ, err := c.body.str("type", true)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "card":
		return s.cardInfo(c)
	case "public_token", "recurrent_token":
	default:
		return nil, invalid("type", "inclusion")
	}
	o, _, err := c.body.object(typ, true)
	if err != nil {
		return nil, err
	}
	tok, err := o.str("token", true)
	if err != nil {
		return nil, err
	}
	if typ == "recurrent_token" {
		t := s.recurrent[tok]
		if t == nil || t.Project != c.project.ID {
			return nil, recordNotFound()
		}
		return map[string]any{"info": renderRecurrent(t)}, nil
	}
	t := s.public[tok]
	if t == nil || t.Project != c.project.ID {
		return nil, recordNotFound()
	}
	expires := t.CreatedAt.Add(PublicTokenTTL)
	return map[string]any{"info": map[string]any{"type": "public_token", "token": t.Token,
		"created_at": formatTime(t.CreatedAt), "finished_at": formatTime(expires),
		"is_active": !t.Used && c.now.Before(expires)}}, nil
}

func (s *Server) cardInfo(c *call) (map[string]any, error) {
	card, _, err := c.body.object("card", true)
	if err != nil {
		return nil, err
	}
	if typ, err := card.str("type", true); err != nil {
		return nil, err
	} else if typ != "encrypted_card" {
		return nil, invalid(card.sub("type"), "inclusion")
	}
	enc, _, err := card.object("encrypted_card", true)
	if err != nil {
		return nil, err
	}
	h, err := enc.str("number_hash", true)
	if err != nil {
		return nil, err
	}
	pan, ok := s.cards[h]
	if !ok {
		return nil, recordNotFound()
	}
	info := cardInfo(pan)
	return map[string]any{"info": map[string]string{"number_hash": h, "brand": info.brand, "last4": info.last4, "type": "debit"}}, nil
}
