package helm_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sethvargo/go-envconfig"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/paysession/paysession/internal/config"
)

const (
	chart       = "paysession-connector"
	kubeVersion = "1.31.0"
)

func TestChart(t *testing.T) {
	cases := []struct {
		name      string
		values    []string
		kinds     []string
		grace     int64 // shutdownGracePeriodSeconds
		termGrace int64 // expected terminationGracePeriodSeconds
		replicas  bool  // Deployment sets replicas (no HPA)
	}{
		{"default values and the required ones", []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}"},
			[]string{"ConfigMap", "Deployment", "NetworkPolicy", "PodDisruptionBudget", "Service", "ServiceAccount"}, 30, 40, true},
		{"full values", []string{"-f", chart + "/ci/full-values.yaml"},
			[]string{"ConfigMap", "Deployment", "HorizontalPodAutoscaler", "Ingress", "NetworkPolicy",
				"PodDisruptionBudget", "Service", "ServiceAccount", "ServiceMonitor"}, 45, 65, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run(t, append([]string{"lint", "--strict", chart, "--kube-version", kubeVersion}, tc.values...)...)
			out := run(t, append([]string{"template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion}, tc.values...)...)
			objs, err := decodeAll(out)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for k := range objs {
				kinds = append(kinds, k)
			}
			slices.Sort(kinds)
			if !slices.Equal(kinds, tc.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tc.kinds)
			}
			d := objs["Deployment"].(*appsv1.Deployment)
			cm := objs["ConfigMap"].(*corev1.ConfigMap)
			checkPod(t, d, tc.grace, tc.termGrace)
			if (d.Spec.Replicas != nil) != tc.replicas {
				t.Errorf("replicas set = %v, want %v", d.Spec.Replicas != nil, tc.replicas)
			}
			checkEnv(t, d, cm)
		})
	}
}

// checkPod checks the hardening, probes and grace period of the pod.
func checkPod(t *testing.T, d *appsv1.Deployment, grace, termGrace int64) {
	t.Helper()
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	psc, sc := pod.SecurityContext, c.SecurityContext
	switch {
	case psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot:
		t.Error("pod runAsNonRoot not set")
	case psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Error("seccomp RuntimeDefault not set")
	case sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("readOnlyRootFilesystem not set")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("privilege escalation allowed")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}):
		t.Error("capabilities not dropped")
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" || c.LivenessProbe.HTTPGet.Port.String() != "metrics" {
		t.Error("liveness probe not on /healthz of the metrics port")
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.ReadinessProbe.HTTPGet.Port.String() != "metrics" {
		t.Error("readiness probe not on /readyz of the metrics port")
	}
	if pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds != termGrace {
		t.Errorf("terminationGracePeriodSeconds %v, want %d", pod.TerminationGracePeriodSeconds, termGrace)
	}
	if v := envValue(c, "PAYSESSION_SHUTDOWN_GRACE"); v != fmt.Sprintf("%ds", grace) {
		t.Errorf("PAYSESSION_SHUTDOWN_GRACE = %q, want %ds", v, grace)
	}
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
		r := e.ValueFrom
		return e.Name == "GOMEMLIMIT" && r != nil && r.ResourceFieldRef != nil &&
			r.ResourceFieldRef.Resource == "limits.memory" && r.ResourceFieldRef.ContainerName == c.Name
	}) {
		t.Errorf("GOMEMLIMIT is not set from the container's memory limit")
	}
	for _, m := range c.VolumeMounts {
		if m.Name != "tmp" && !m.ReadOnly {
			t.Errorf("secret mount %s is writable", m.Name)
		}
	}
	checkSecretModes(t, pod)
}

// checkSecretModes checks that the files of every secret volume but the
// service's public keys are closed to other users, as the connector
// requires of key, password and token files (PAYSESSION_ALLOW_READABLE_SECRETS),
// and that a group-readable mode comes with the fsGroup through which the
// non-root connector reads it.
func checkSecretModes(t *testing.T, pod corev1.PodSpec) {
	t.Helper()
	for _, v := range pod.Volumes {
		if v.Secret == nil || v.Name == "service-keys" {
			continue
		}
		mode := int32(0o644) // Kubernetes' default
		if v.Secret.DefaultMode != nil {
			mode = *v.Secret.DefaultMode
		}
		for _, it := range v.Secret.Items {
			if it.Mode != nil {
				mode |= *it.Mode
			}
		}
		if mode&0o007 != 0 {
			t.Errorf("secret volume %s: mode %04o is open to other users; the connector refuses it", v.Name, mode)
		}
		if mode&0o040 != 0 && (pod.SecurityContext == nil || pod.SecurityContext.FSGroup == nil) {
			t.Errorf("secret volume %s: mode %04o is group-readable but the pod sets no fsGroup", v.Name, mode)
		}
	}
}

func envValue(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// checkEnv checks that every PAYSESSION_* variable the chart sets is one the
// connector reads, and that the connector accepts the chart's configuration:
// with the mounted files absent here, the only complaints may be about files.
func checkEnv(t *testing.T, d *appsv1.Deployment, cm *corev1.ConfigMap) {
	t.Helper()
	known := map[string]bool{}
	for _, v := range config.Variables() {
		known[v.Name] = true
	}
	env := map[string]string{}
	for k, v := range cm.Data {
		env[k] = v
	}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
		if e.ValueFrom != nil {
			env[e.Name] = "from-secret"
		}
	}
	for name := range env {
		if strings.HasPrefix(name, config.Prefix) && !known[name] {
			t.Errorf("chart sets %s, which internal/config does not read", name)
		}
	}
	for _, must := range []string{"PAYSESSION_API_PRIVATE_KEY_FILE", "PAYSESSION_WEBHOOK_LISTEN_ADDR", "PAYSESSION_METRICS_LISTEN_ADDR", "PAYSESSION_SHUTDOWN_GRACE"} {
		if env[must] == "" {
			t.Errorf("chart does not set %s", must)
		}
	}
	// Default values leave the deployment-specific settings to the operator.
	for k, v := range map[string]string{"PAYSESSION_API_BASE_URL": "https://api.example", "PAYSESSION_API_PROJECT": "p", "PAYSESSION_KAFKA_BROKERS": "kafka:9092"} {
		if env[k] == "" {
			env[k] = v
		}
	}
	_, err := config.Load(context.Background(), envconfig.MapLookuper(env))
	if err == nil {
		return
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if !strings.Contains(line, "cannot read /etc/paysession/") && !strings.Contains(line, "_FILE: read /etc/paysession/") {
			t.Errorf("connector rejects the chart's configuration: %s", line)
		}
	}
}

// TestStrictDecodingCatchesTypos guards the guard: a misspelt field fails.
func TestStrictDecodingCatchesTypos(t *testing.T) {
	doc := "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec:\n  prots: [{port: 80}]\n"
	if _, err := decodeAll([]byte(doc)); err == nil || !strings.Contains(err.Error(), "prots") {
		t.Fatalf("typo not caught: %v", err)
	}
}
