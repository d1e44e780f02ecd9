package harness

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/paysim"
)

// Sandbox starts an in-process paysim sandbox for t and returns it with the
// connector's variables (PAYSESSION_*) that point a connector at it: the
// sandbox's URL, the project, the dev key files, the brokers of Kafka(t), a
// consumer group and transactional id prefix unique to this call, and every
// topic variable set to a fresh topic of t (ConnectorTopics, one partition per
// command topic).
//
// The sandbox serves one DevProject named project, whose webhooks go to
// webhookURL ("" for none), on a free loopback port; its dev keys are made in
// t.TempDir(). It is closed and the topics are deleted when t ends. Callers add
// their own variables (timings, log level, webhook path) to the map, which is
// theirs to change.
//
// Each extra project is served too, with dev keys of its own in a directory of
// its own (PAYSESSION_API_EXTRA_PROJECTS), its webhooks sent to webhookURL
// followed by "/" and its name.
func Sandbox(t testing.TB, project, webhookURL string, extra ...string) (*paysim.Server, map[string]string) {
	t.Helper()
	brokers := Kafka(t)
	dir := t.TempDir()
	partner, service, err := paysim.DevKeys(dir)
	if err != nil {
		t.Fatalf("sandbox dev keys: %v", err)
	}
	projects := []paysim.Project{paysim.DevProject(project, &partner.PublicKey, webhookURL)}
	var extraVar []string
	for _, name := range extra {
		d := t.TempDir()
		key, _, err := paysim.DevKeys(d)
		if err != nil {
			t.Fatalf("sandbox dev keys of %s: %v", name, err)
		}
		hook := ""
		if webhookURL != "" {
			hook = webhookURL + "/" + name
		}
		projects = append(projects, paysim.DevProject(name, &key.PublicKey, hook))
		extraVar = append(extraVar, name+"="+filepath.Join(d, paysim.DevPartnerPrivate))
	}
	sim, err := paysim.New(paysim.Config{ServiceKey: service, Seed: 1, Projects: projects})
	if err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	t.Cleanup(func() { _ = sim.Close() })

	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	vars := SandboxVars(sim.URL(), project, dir, brokers, project+"-"+hex.EncodeToString(suffix[:]))
	if len(extraVar) > 0 {
		vars["PAYSESSION_API_EXTRA_PROJECTS"] = strings.Join(extraVar, ",")
	}
	for name, topic := range ConnectorTopics(t, NewClient(t), 1, nil) {
		vars[name] = topic
	}
	return sim, vars
}

// Listen returns a listener on a free loopback port, closed when t ends: for
// the webhook and ops endpoints of an in-process connector.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// SandboxVars are the variables that point a connector at the sandbox at url serving project
// with the dev keys in keyDir (paysim.DevKeys), on brokers, with the group and transactional
// id prefix id.
func SandboxVars(url, project, keyDir string, brokers []string, id string) map[string]string {
	return map[string]string{
		"PAYSESSION_API_BASE_URL":                  url,
		"PAYSESSION_API_PROJECT":                   project,
		"PAYSESSION_API_PRIVATE_KEY_FILE":          filepath.Join(keyDir, paysim.DevPartnerPrivate),
		"PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES":  filepath.Join(keyDir, paysim.DevServicePublic),
		"PAYSESSION_KAFKA_BROKERS":                 strings.Join(brokers, ","),
		"PAYSESSION_KAFKA_GROUP_ID":                id,
		"PAYSESSION_KAFKA_TRANSACTIONAL_ID_PREFIX": id,
	}
}
