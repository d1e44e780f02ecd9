package helm_test

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestRegistryAuth renders the registry as platforms run it: bearer token
// from a secret, a CA bundle from another, lookup-only; and basic auth as
// before. Linted, decoded strictly, and accepted by the configuration
// loader.
func TestRegistryAuth(t *testing.T) {
	required := []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}"}
	tests := []struct {
		name      string
		set       []string
		env       map[string]string // "" = absent
		item, ca  string            // the registry volume's one key; the CA volume's ("" = no volume)
		userEnvOn bool
	}{
		{"bearer, CA, lookup-only", []string{"--set", "schemaRegistry.url=https://registry.example,schemaRegistry.existingSecret=registry-token," +
			"schemaRegistry.tokenKey=token,schemaRegistry.caSecret=registry-ca,schemaRegistry.lookupOnly=true"},
			map[string]string{
				"PAYSESSION_REGISTRY_TOKEN_FILE":    "/etc/paysession/registry/token",
				"PAYSESSION_REGISTRY_CA_FILE":       "/etc/paysession/registry-ca/ca.crt",
				"PAYSESSION_REGISTRY_LOOKUP_ONLY":   "true",
				"PAYSESSION_REGISTRY_PASSWORD_FILE": "",
			}, "token", "ca.crt", false},
		{"basic auth", []string{"--set", "schemaRegistry.url=https://registry.example,schemaRegistry.existingSecret=registry-basic"},
			map[string]string{
				"PAYSESSION_REGISTRY_PASSWORD_FILE": "/etc/paysession/registry/password",
				"PAYSESSION_REGISTRY_LOOKUP_ONLY":   "false",
				"PAYSESSION_REGISTRY_TOKEN_FILE":    "",
				"PAYSESSION_REGISTRY_CA_FILE":       "",
			}, "password", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(slices.Clone(required), tt.set...)
			run(t, append([]string{"lint", "--strict", chart, "--kube-version", kubeVersion}, args...)...)
			objs, err := decodeAll(run(t, append([]string{"template", "rel", chart, "--kube-version", kubeVersion}, args...)...))
			if err != nil {
				t.Fatal(err)
			}
			d := objs["Deployment"].(*appsv1.Deployment)
			cm := objs["ConfigMap"].(*corev1.ConfigMap)
			for k, want := range tt.env {
				if got, ok := cm.Data[k]; got != want || (want == "" && ok) {
					t.Errorf("%s = %q (set %v), want %q", k, got, ok, want)
				}
			}
			if v := volume(d, "registry"); v == nil || len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != tt.item {
				t.Errorf("registry volume %+v, want only key %s", v, tt.item)
			}
			if v := volume(d, "registry-ca"); (v != nil) != (tt.ca != "") || v != nil && v.Secret.Items[0].Key != tt.ca {
				t.Errorf("registry-ca volume %+v, want key %q", v, tt.ca)
			}
			userEnv := slices.ContainsFunc(d.Spec.Template.Spec.Containers[0].Env, func(e corev1.EnvVar) bool { return e.Name == "PAYSESSION_REGISTRY_USERNAME" })
			if userEnv != tt.userEnvOn {
				t.Errorf("PAYSESSION_REGISTRY_USERNAME set: %v, want %v", userEnv, tt.userEnvOn)
			}
			checkEnv(t, d, cm)
		})
	}
}
