package payapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/signing"
)

// TestCallsSignedPerProject checks that a call naming a project is signed
// with that project's key and sends that project and the call's
// submerchant, that other calls keep the defaults, and that an unknown
// project fails before anything is sent.
func TestCallsSignedPerProject(t *testing.T) {
	other, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeService(t, jsonResponse(http.StatusOK, `{"status":"ok"}`))
	c := newTestClient(t, f.srv.URL, 1, func(cfg *Config) {
		cfg.Submerchant = "default-payer"
		cfg.Projects = []Project{{ID: "proj-2", Signer: signing.NewRSASigner(other, signing.PKCS1v15)}}
	})
	tests := []struct {
		name              string
		opts              []CallOption
		project, sub      string
		key               *signing.RSAVerifier
		wantCode, wantFld string
	}{
		{name: "default project", project: "proj-1", sub: "default-payer", key: signing.NewRSAVerifier(signing.PKCS1v15, &key(t).PublicKey)},
		{name: "named project and submerchant", opts: []CallOption{WithProject("proj-2"), WithSubmerchant("payer-9")},
			project: "proj-2", sub: "payer-9", key: signing.NewRSAVerifier(signing.PKCS1v15, &other.PublicKey)},
		{name: "empty names keep the defaults", opts: []CallOption{WithProject(""), WithSubmerchant("")},
			project: "proj-1", sub: "default-payer", key: signing.NewRSAVerifier(signing.PKCS1v15, &key(t).PublicKey)},
		{name: "unknown project", opts: []CallOption{WithProject("proj-3")}, wantCode: CodeUnknownProject, wantFld: "project"},
		{name: "submerchant with a newline", opts: []CallOption{WithSubmerchant("a\r\nX-Evil: 1")}, wantCode: CodeInvalidArgument, wantFld: "submerchant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.requests())
			_, err := c.Capture(context.Background(), CaptureRequest{SessionID: "ps_1"}, append(tt.opts, WithIdempotencyKey("key-"+tt.project+"-1"))...)
			if tt.wantCode != "" {
				var e *Error
				if !errors.As(err, &e) || e.Code != tt.wantCode || e.Field != tt.wantFld || e.Sent || e.Retryable {
					t.Fatalf("error %#v, want %s on %s, not sent, final", err, tt.wantCode, tt.wantFld)
				}
				if len(f.requests()) != before {
					t.Fatal("a request was sent")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := f.last(t)
			if got := r.Header.Get(HeaderProject); got != tt.project {
				t.Errorf("project header %q, want %q", got, tt.project)
			}
			if got := r.Header.Get(HeaderSubmerchant); got != tt.sub {
				t.Errorf("submerchant header %q, want %q", got, tt.sub)
			}
			if err := tt.key.Verify(r.Body, r.Header.Get(HeaderSign)); err != nil {
				t.Errorf("signature does not verify under the project's key: %v", err)
			}
		})
	}
	if got := c.Projects(); len(got) != 2 || got[0] != "proj-1" || got[1] != "proj-2" {
		t.Errorf("Projects() = %v", got)
	}
}

func TestConfigValidateProjects(t *testing.T) {
	s := signing.NewRSASigner(key(t), signing.PKCS1v15)
	cfg := Config{BaseURL: "http://127.0.0.1:1", Project: "p1", Signer: s,
		Projects: []Project{{ID: "p1", Signer: s}, {ID: "", Signer: s}, {ID: "p3"}}}
	err := cfg.Validate()
	for _, want := range []string{`Projects[0].ID: "p1" is named twice`, "Projects[1].ID: required", "Projects[2].Signer: required"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
		}
	}
}

// TestOperationRecurringToken reads the recurring token a payment issued.
func TestOperationRecurringToken(t *testing.T) {
	body := `{"status":"ok","session":{"id":"ps_1","status":"accepted","created_at":"2026-11-23T10:00:00.000000Z","updated_at":"2026-11-23T10:00:01.000000Z",
	"acquiring_payments":[{"id":"pm_1","status":"succeeded","created_at":"2026-11-23T10:00:00.000000Z",
	"recurrent":{"token":"rt_abc","created_at":"2026-11-23T10:00:01.000000Z","finished_at":"2029-11-23T10:00:01+0300","is_active":true,"type":"recurrent_token"}}]}}`
	f := newFakeService(t, jsonResponse(http.StatusOK, body))
	c := newTestClient(t, f.srv.URL, 1)
	s, err := c.Status(context.Background(), "ps_1")
	if err != nil {
		t.Fatal(err)
	}
	rt := s.Payments[0].RecurringToken
	if rt == nil || rt.Token != "rt_abc" || !rt.IsActive || rt.CreatedAt.IsZero() || rt.FinishedAt == nil || rt.FinishedAt.Year() != 2029 {
		t.Fatalf("recurring token %+v", rt)
	}
}

// TestProjectOf: the project a call's options name, as the client reads
// them (the last WithProject wins; none: the default).
func TestProjectOf(t *testing.T) {
	for _, tc := range []struct {
		opts []CallOption
		want string
	}{
		{nil, ""},
		{[]CallOption{WithProject("proj-2")}, "proj-2"},
		{[]CallOption{WithProject("proj-2"), WithIdempotencyKey("key-1"), WithProject("proj-3")}, "proj-3"},
	} {
		if got := ProjectOf(tc.opts...); got != tc.want {
			t.Errorf("ProjectOf(%d options) = %q, want %q", len(tc.opts), got, tc.want)
		}
	}
}
