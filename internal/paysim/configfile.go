package paysim

import (
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paysession/paysession/internal/signing"
)

// FileConfig is the JSON configuration file of cmd/paysim:
//
//	{
//	  "service_private_key_file": "keys/service_private.pem",
//	  "service_padding": "pkcs1v15",
//	  "projects": [{
//	    "id": "shop-1",
//	    "public_key_files": ["keys/partner_public.pem"],
//	    "public_keys_pem": ["-----BEGIN PUBLIC KEY-----..."],
//	    "padding": "pkcs1v15",
//	    "webhook_url": "http://127.0.0.1:8081/webhooks",
//	    "auto_confirm": true, "confirm_above": 1000000,
//	    "tokenize_enabled": true, "require_sender": false,
//	    "wallet_balance": 100000000000
//	  }]
//	}
//
// Relative paths are resolved against the file's directory. auto_confirm and
// tokenize_enabled default to true when absent.
type FileConfig struct {
	ServicePrivateKeyFile string        `json:"service_private_key_file"`
	ServicePadding        string        `json:"service_padding"`
	Projects              []FileProject `json:"projects"`
}

// FileProject is one project of FileConfig.
type FileProject struct {
	ID              string   `json:"id"`
	PublicKeyFiles  []string `json:"public_key_files"`
	PublicKeysPEM   []string `json:"public_keys_pem"`
	Padding         string   `json:"padding"`
	WebhookURL      string   `json:"webhook_url"`
	AutoConfirm     *bool    `json:"auto_confirm"`
	ConfirmAbove    int64    `json:"confirm_above"`
	TokenizeEnabled *bool    `json:"tokenize_enabled"`
	RequireSender   bool     `json:"require_sender"`
	WalletBalance   int64    `json:"wallet_balance"`
}

// LoadFile reads a FileConfig and returns its projects and service key
// (nil when the file names none), reporting every problem at once.
func LoadFile(path string) ([]Project, *rsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read paysim config: %w", err)
	}
	var fc FileConfig
	if err := json.Unmarshal(data, &fc); err != nil {
		return nil, nil, fmt.Errorf("parse paysim config %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	var errs []error
	var key *rsa.PrivateKey
	if fc.ServicePrivateKeyFile != "" {
		if key, err = signing.LoadPrivateKey(rel(fc.ServicePrivateKeyFile)); err != nil {
			errs = append(errs, fmt.Errorf("service_private_key_file: %w", err))
		}
	}
	var projects []Project
	for i, fp := range fc.Projects {
		p, perrs := fp.project(rel)
		for _, e := range perrs {
			errs = append(errs, fmt.Errorf("projects[%d]: %w", i, e))
		}
		projects = append(projects, p)
	}
	return projects, key, errors.Join(errs...)
}

func (fp FileProject) project(rel func(string) string) (Project, []error) {
	var errs []error
	p := Project{ID: fp.ID, WebhookURL: fp.WebhookURL, AutoConfirm: fp.AutoConfirm == nil || *fp.AutoConfirm,
		ConfirmAbove: fp.ConfirmAbove, TokenizeEnabled: fp.TokenizeEnabled == nil || *fp.TokenizeEnabled,
		RequireSender: fp.RequireSender, WalletBalance: fp.WalletBalance}
	var err error
	if p.Padding, err = signing.ParsePadding(fp.Padding); err != nil {
		errs = append(errs, fmt.Errorf("padding: %w", err))
	}
	for _, f := range fp.PublicKeyFiles {
		k, err := signing.LoadPublicKey(rel(f))
		if err != nil {
			errs = append(errs, fmt.Errorf("public_key_files: %w", err))
			continue
		}
		p.PublicKeys = append(p.PublicKeys, k)
	}
	for j, pem := range fp.PublicKeysPEM {
		k, err := signing.ParsePublicKeyPEM([]byte(pem))
		if err != nil {
			errs = append(errs, fmt.Errorf("public_keys_pem[%d]: %w", j, err))
			continue
		}
		p.PublicKeys = append(p.PublicKeys, k)
	}
	return p, errs
}

// Dev key files written by DevKeys.
const (
	DevPartnerPrivate = "partner_private.pem" // the connector signs requests with it
	DevPartnerPublic  = "partner_public.pem"
	DevServicePrivate = "service_private.pem" // the sandbox signs webhooks with it
	DevServicePublic  = "service_public.pem"  // the connector verifies webhooks with it
)

// DevKeys loads the partner and service key pairs from dir, generating and
// writing any that are missing (PEM, private keys mode 0600).
func DevKeys(dir string) (partner, service *rsa.PrivateKey, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("dev key dir: %w", err)
	}
	if partner, err = loadOrCreate(dir, DevPartnerPrivate, DevPartnerPublic); err != nil {
		return nil, nil, err
	}
	if service, err = loadOrCreate(dir, DevServicePrivate, DevServicePublic); err != nil {
		return nil, nil, err
	}
	return partner, service, nil
}

func loadOrCreate(dir, priv, pub string) (*rsa.PrivateKey, error) {
	privPath, pubPath := filepath.Join(dir, priv), filepath.Join(dir, pub)
	if k, err := signing.LoadPrivateKey(privPath); err == nil {
		if _, err := os.Stat(pubPath); err == nil {
			return k, nil
		}
		return k, signing.WriteKeyPair(k, privPath, pubPath)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("dev key %s: %w", priv, err)
	}
	k, err := signing.GenerateKey(2048)
	if err != nil {
		return nil, fmt.Errorf("generate dev key: %w", err)
	}
	if err := signing.WriteKeyPair(k, privPath, pubPath); err != nil {
		return nil, fmt.Errorf("write dev key %s: %w", priv, err)
	}
	return k, nil
}
