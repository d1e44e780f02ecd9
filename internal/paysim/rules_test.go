package paysim

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Tests of the sandbox rules issue 15 made faithful to the spec.

// twoProjects is an environment with projects "dev" and "shop2" (same
// partner key, so one signer serves both); shop2 can require the sender.
func twoProjects(t *testing.T, requireSender bool) *env {
	return newEnv(t, func(c *Config) {
		p := DevProject("shop2", c.Projects[0].PublicKeys[0], c.Projects[0].WebhookURL)
		p.RequireSender = requireSender
		c.Projects = append(c.Projects, p)
	})
}

func (e *env) as(project, method string, body any) resp {
	e.t.Helper()
	return e.callWith("v1", method, body, map[string]string{HeaderProject: project})
}

// paidToken makes a successful card payment in project and returns the
// recurring token it issued.
func (e *env) paidToken(project string) string {
	e.t.Helper()
	body := paymentBody(CardSuccess, 1000)
	body["participant_details"] = map[string]any{"sender": map[string]any{"first_name": "A", "last_name": "B", "ipv4": "10.0.0.1"}}
	r := e.as(project, "session/init/payment", body)
	if r.code() != "ok" {
		e.t.Fatalf("payment: %s", r.code())
	}
	e.idle()
	rec, _ := op(e.callWith("v1", "session/status", map[string]any{"session_id": r.session()["id"]}, map[string]string{HeaderProject: project}).session())["recurrent"].(map[string]any)
	if rec == nil {
		e.t.Fatal("the payment issued no recurring token")
	}
	return rec["token"].(string)
}

func tokenCard(tok string) map[string]any {
	return map[string]any{"type": "card", "card": map[string]any{"type": "tokenized_card", "tokenized_card": map[string]any{"token": tok}}}
}

func TestRecurringTokensScopedToTheirProject(t *testing.T) {
	e := twoProjects(t, false)
	tok := e.paidToken("dev")
	amount := map[string]any{"amount": 100, "currency": "rub"}
	cases := []struct {
		name, project, method string
		body                  map[string]any
		want                  string
	}{
		{"token/info from another project", "shop2", "token/info", map[string]any{"type": "recurrent_token", "recurrent_token": map[string]any{"token": tok}}, "repository_record_not_found internal error"},
		{"disable from another project", "shop2", "recurrent/disable", map[string]any{"recurrent": map[string]any{"token": tok}}, "repository_record_not_found internal error"},
		{"payment with another project's token", "shop2", "session/init/payment", map[string]any{"payment_details": tokenCard(tok), "amount_details": amount, "customer": map[string]any{"reference": "c"}}, "invalid_request payment_details.card.tokenized_card.token.unknown"},
		{"payout with another project's token", "shop2", "session/init/payout", map[string]any{"payment_method": tokenCard(tok), "amount_details": amount}, "ok"},
		{"token/info in its project", "dev", "token/info", map[string]any{"type": "recurrent_token", "recurrent_token": map[string]any{"token": tok}}, "ok"},
		{"payment with the token in its project", "dev", "session/init/payment", map[string]any{"payment_details": tokenCard(tok), "amount_details": amount, "customer": map[string]any{"reference": "c"}}, "ok"},
		{"disable in its project", "dev", "recurrent/disable", map[string]any{"recurrent": map[string]any{"token": tok}}, "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.as(tc.project, tc.method, tc.body).code(); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOneTimeProjectIssuesNoToken(t *testing.T) {
	e := twoProjects(t, true)
	tok := e.paidToken("dev")
	sender := map[string]any{"sender": map[string]any{"first_name": "A", "last_name": "B", "ipv4": "10.0.0.1"}}
	r := e.as("dev", "session/init/payment", map[string]any{"payment_details": tokenCard(tok),
		"amount_details": map[string]any{"amount": 100, "currency": "rub"}, "customer": map[string]any{"reference": "c"}, "participant_details": sender})
	if r.code() != "ok" {
		t.Fatalf("dev payment: %s", r.code())
	}
	// shop2 requires sender parameters: its payments are one-time only, and
	// a payment there issues no token either.
	if got := e.paidTokenOrEmpty("shop2"); got != "" {
		t.Fatalf("shop2 payment issued token %s", got)
	}
}

func (e *env) paidTokenOrEmpty(project string) string {
	body := paymentBody(CardSuccess, 1000)
	body["participant_details"] = map[string]any{"sender": map[string]any{"first_name": "A", "last_name": "B", "ipv4": "10.0.0.1"}}
	r := e.as(project, "session/init/payment", body)
	e.idle()
	rec, _ := op(e.callWith("v1", "session/status", map[string]any{"session_id": r.session()["id"]}, map[string]string{HeaderProject: project}).session())["recurrent"].(map[string]any)
	if rec == nil {
		return ""
	}
	return rec["token"].(string)
}

func TestOneTimeOnlyTokenPayment(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Projects[0].RequireSender = true })
	// A token issued before the project required senders (set by hand).
	e.srv.mu.Lock()
	e.srv.recurrent["rt_old"] = &recurrentToken{Token: "rt_old", Project: "dev", PAN: CardSuccess, Active: true}
	e.srv.mu.Unlock()
	r := e.call("v1", "session/init/payment", map[string]any{"payment_details": tokenCard("rt_old"),
		"amount_details": map[string]any{"amount": 100, "currency": "rub"}, "customer": map[string]any{"reference": "c"},
		"participant_details": map[string]any{"sender": map[string]any{"first_name": "A", "last_name": "B", "ipv4": "10.0.0.1"}}}, "")
	if got := r.code(); got != "invalid_request payment_details.card.tokenized_card.token.one_time_only" {
		t.Fatalf("got %q", got)
	}
}

// TestStartPaymentTakesSenderFromCreate: the sender may be given "either
// earlier or in this request".
func TestStartPaymentTakesSenderFromCreate(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Projects[0].RequireSender = true })
	sender := map[string]any{"sender": map[string]any{"first_name": "A", "last_name": "B", "ipv4": "10.0.0.1"}}
	created := e.call("v1", "session/create", map[string]any{"participant_details": sender}, "")
	if created.code() != "ok" {
		t.Fatalf("create: %s", created.code())
	}
	body := paymentBody(CardSuccess, 500)
	body["session_id"] = created.session()["id"]
	if r := e.call("v1", "session/start/payment", body, ""); r.code() != "ok" {
		t.Fatalf("start with the sender from create: %s", r.code())
	}
	bare := e.call("v1", "session/create", map[string]any{}, "")
	body["session_id"] = bare.session()["id"]
	if got := e.call("v1", "session/start/payment", body, "").code(); got != "invalid_request participant_details.blank" {
		t.Fatalf("start without any sender: %q", got)
	}
	body["participant_details"] = map[string]any{"sender": map[string]any{"first_name": "A", "last_name": "B"}}
	if got := e.call("v1", "session/start/payment", body, "").code(); got != "invalid_request participant_details.sender.ipv4.blank" {
		t.Fatalf("start with a sender without ipv4: %q", got)
	}
}

func TestPublicTokenWithoutWidget(t *testing.T) {
	e := newEnv(t, nil)
	r := e.call("v1", "token", map[string]any{}, "")
	if tok, _ := r.Body["public_token"].(string); r.code() != "ok" || !strings.HasPrefix(tok, "pt_") {
		t.Fatalf("token without widgets: %s %s", r.code(), r.Raw)
	}
}

func TestTokenizeDuplicateRef(t *testing.T) {
	e := newEnv(t, nil)
	el := func(ref, n string) map[string]any {
		return map[string]any{"ref": ref, "type": "card_number", "card_number": n}
	}
	r := e.call("v1", "tokenize/elements", map[string]any{"card_elements": []any{el("a", CardSuccess), el("a", CardHold)}}, "")
	if got := r.code(); got != "invalid_request card_elements.1.ref.non_unique" {
		t.Fatalf("got %q", got)
	}
}

func TestPayoutToCardByNumberOnly(t *testing.T) {
	e := newEnv(t, nil)
	number := func(extra map[string]any) map[string]any {
		bc := map[string]any{"number": CardSuccess}
		for k, v := range extra {
			bc[k] = v
		}
		return map[string]any{"type": "card", "card": map[string]any{"type": "bank_card", "bank_card": bc}}
	}
	amount := map[string]any{"amount": 100, "currency": "rub"}
	cases := []struct {
		name, method string
		body         map[string]any
		want         string
	}{
		{"payout by number", "session/init/payout", map[string]any{"payment_method": number(nil), "amount_details": amount}, "ok"},
		{"payout with half an expiry", "session/init/payout", map[string]any{"payment_method": number(map[string]any{"expiration_month": "12"}), "amount_details": amount},
			"invalid_request payment_method.card.bank_card.expiration_year.blank"},
		{"payment by number", "session/init/payment", map[string]any{"payment_details": number(map[string]any{"security_code": "123"}), "amount_details": amount, "customer": map[string]any{"reference": "c"}},
			"invalid_request payment_details.card.bank_card.expiration_month.blank"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.call("v1", tc.method, tc.body, "").code(); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCaptureAndRefundCurrencyRule(t *testing.T) {
	e := newEnv(t, nil)
	held := e.call("v1", "session/init/payment", paymentBody(CardHold, 1000), "")
	e.idle()
	id := held.session()["id"]
	r := e.call("v1", "session/capture", map[string]any{"session_id": id, "amount_details": map[string]any{"amount": 10, "currency": "usd"}}, "")
	if got := r.code(); got != "invalid_request amount_details.currency.currency" {
		t.Fatalf("capture: %q", got)
	}
	paid := e.call("v1", "session/init/payment", paymentBody(CardSuccess, 1000), "")
	e.idle()
	r = e.call("v1", "session/refund", map[string]any{"session_id": paid.session()["id"], "amount_details": map[string]any{"amount": 10, "currency": "usd"}}, "")
	if got := r.code(); got != "invalid_request amount_details.currency.currency" {
		t.Fatalf("refund: %q", got)
	}
}

// TestThreeDSecurePostRedirect: Card3DSPost asks for a POST redirect with
// PaReq, MD and TermUrl form parameters; posting the form finishes the step.
func TestThreeDSecurePostRedirect(t *testing.T) {
	e := newEnv(t, nil)
	r := e.call("v1", "session/init/payment", paymentBody(Card3DSPost, 1000), "")
	e.idle()
	id := r.session()["id"].(string)
	o := op(e.status(id))
	ci, _ := o["customer_interaction"].(map[string]any)
	red, _ := ci["redirect"].(map[string]any)
	if red == nil || red["method"] != "POST" {
		t.Fatalf("redirect %v", ci)
	}
	params, _ := red["params"].(map[string]any)
	if params["MD"] != o["id"] || params["PaReq"] == "" || params["TermUrl"] == "" || strings.Contains(string(r.Raw), Card3DSPost) {
		t.Fatalf("params %v", params)
	}
	if !strings.Contains(strings.Join(e.hooks.types(), ","), EventActionRequired) {
		t.Fatalf("webhooks %v", e.hooks.types())
	}
	form := url.Values{"MD": {params["MD"].(string)}, "PaReq": {params["PaReq"].(string)}, "result": {"success"}}
	res, err := http.PostForm(red["base_url"].(string), form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("posting the form: %d", res.StatusCode)
	}
	e.srv.Advance(time.Second)
	e.idle()
	if st := op(e.status(id))["status"]; st != statusSucceeded {
		t.Fatalf("after the form: %v", st)
	}
}

// TestExecutionsRecordSubmerchant: the execution log names the payer a call
// was made for, so tests can prove the header reached the service.
func TestExecutionsRecordSubmerchant(t *testing.T) {
	e := newEnv(t, nil)
	body := paymentBody(CardSuccess, 100)
	body["metadata"] = map[string]any{"merchant": "", "submerchant": "https://shop.example"}
	r := e.callWith("v1", "session/init/payment", body, map[string]string{HeaderSubmerchant: "legal-entity-7"})
	if r.code() != "ok" {
		t.Fatal(r.code())
	}
	ex, _ := e.srv.Executions(r.session()["id"].(string))
	if len(ex) != 1 || ex[0].Submerchant != "legal-entity-7" || ex[0].Project != "dev" {
		t.Fatalf("executions %+v", ex)
	}
}

// TestDisabledTokenShowsInItsPayment: after recurrent/disable the payment
// that issued the token shows it inactive, and its session's updated_at
// moves (the session changed), so a status poll carries the new state.
func TestDisabledTokenShowsInItsPayment(t *testing.T) {
	e := newEnv(t, nil)
	tok := e.paidToken("dev")
	e.srv.mu.Lock()
	id := e.srv.recurrent[tok].SessionID
	e.srv.mu.Unlock()
	before := e.status(id)["updated_at"]
	e.srv.Advance(time.Minute)
	if got := e.call("v1", "recurrent/disable", map[string]any{"recurrent": map[string]any{"token": tok}}, "").code(); got != "ok" {
		t.Fatal(got)
	}
	after := e.status(id)
	rec := op(after)["recurrent"].(map[string]any)
	if rec["is_active"] != false || after["updated_at"] == before {
		t.Fatalf("after disable: recurrent %v, updated_at %v (before %v)", rec, after["updated_at"], before)
	}
}
