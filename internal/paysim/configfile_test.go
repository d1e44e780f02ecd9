package paysim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDevKeysAndLoadFile(t *testing.T) {
	dir := t.TempDir()
	partner, service, err := DevKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := DevKeys(dir)
	if err != nil || !again.Equal(partner) {
		t.Fatalf("second DevKeys did not reuse the keys: %v", err)
	}
	cfg := `{"service_private_key_file":"service_private.pem","projects":[
	  {"id":"a","public_key_files":["partner_public.pem"],"webhook_url":"http://127.0.0.1:1/h"},
	  {"id":"b","public_key_files":["partner_public.pem"],"auto_confirm":false,"padding":"pss"}]}`
	path := filepath.Join(dir, "paysim.json")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	projects, key, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !key.Equal(service) || len(projects) != 2 || !projects[0].AutoConfirm || projects[1].AutoConfirm || !projects[0].TokenizeEnabled {
		t.Fatalf("projects: %+v", projects)
	}
	bad := `{"projects":[{"id":"c","public_key_files":["missing.pem"],"padding":"rot13"}]}`
	os.WriteFile(path, []byte(bad), 0o600)
	_, _, err = LoadFile(path)
	if err == nil || !strings.Contains(err.Error(), "padding") || !strings.Contains(err.Error(), "public_key_files") {
		t.Fatalf("want both problems, got %v", err)
	}
}

func TestConfigValidateJoinsProblems(t *testing.T) {
	err := Config{ProcessingDelay: -1, Projects: []Project{{}, {}}}.Validate()
	for _, want := range []string{"ServiceKey", "Projects[0].ID", "Projects[0].PublicKeys", "ProcessingDelay"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("missing %s in %v", want, err)
		}
	}
}
