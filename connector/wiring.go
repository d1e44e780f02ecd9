package connector

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/payapi"
)

func newAPIClient(cfg *config.Config, o Options) (*payapi.Client, error) {
	signer, projects, err := signers(cfg, signingGate(o.Logger))
	if err != nil {
		return nil, err
	}
	hc := o.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.Pipeline.MaxInFlight
		hc = &http.Client{Transport: tr, Timeout: cfg.API.RequestTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return payapi.New(payapi.Config{BaseURL: cfg.API.BaseURL, Version: cfg.API.Version, Project: cfg.API.Project,
		Submerchant: cfg.API.Submerchant, Signer: signer, Projects: projects, HTTPClient: hc, Logger: o.Logger.With("part", "payapi")})
}

// NewCodecs builds the outcome encoder and the decoder (of commands, and of
// outcome records read back); with a schema registry configured both use
// it, and the encoder registers the outcome schemas up front so a registry
// problem stops the start.
func NewCodecs(ctx context.Context, cfg *config.Config, log *slog.Logger) (*codec.Encoder, *codec.Decoder, error) {
	reg, err := RegistryClient(cfg.Registry)
	if err != nil {
		return nil, nil, fmt.Errorf("schema registry: %w", err)
	}
	t := cfg.Topics
	enc, err := codec.NewEncoder(codec.EncoderConfig{Registry: reg, LookupOnly: cfg.Registry.LookupOnly, Logger: log,
		Topics: codec.OutcomeTopics{CommandResults: t.CommandResults, Sessions: t.Sessions, SessionUpdates: t.SessionUpdates,
			WebhookEvents: t.WebhookEvents, DeadLetter: t.DeadLetter, WalletBalances: t.WalletBalances, FPSBanks: t.FPSBanks}.Schemas()})
	if err != nil {
		return nil, nil, err
	}
	if err := enc.Prepare(ctx); err != nil {
		return nil, nil, fmt.Errorf("schema registry: %w", err)
	}
	dec, err := codec.NewDecoder(codec.DecoderConfig{Registry: reg, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	return enc, dec, nil
}

func pipelineTopics(t config.Topics) pipeline.Topics {
	cmds := map[codec.CommandKind]string{}
	for kind, topic := range t.Commands() {
		cmds[codec.CommandKind(kind)] = topic
	}
	return pipeline.Topics{Commands: cmds, Retry: t.Retry, Results: t.CommandResults, SessionUpdates: t.SessionUpdates,
		DeadLetter: t.DeadLetter, Attempts: t.Attempts}
}

func confirmPolicy(c config.Confirmation) reconcile.ConfirmPolicy {
	p := reconcile.ConfirmPolicy{Mode: reconcile.ConfirmUpstream}
	if c.Policy == "auto" {
		p.Mode = reconcile.ConfirmAuto
		for _, k := range c.Kinds {
			p.AutoKinds = append(p.AutoKinds, codec.OperationKind(k))
		}
		p.AutoMaxAmount = c.MaxAmount
	}
	return p
}
