package helm_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/paysession/paysession/internal/tracing"
)

// TestTracingValues: tracing is off by default (no OTEL_* variable); with
// an endpoint the ConfigMap sets the OTLP endpoint, the service name and
// the sampler, the pod adds its name and namespace as resource attributes,
// and the connector's tracing setup accepts the rendered variables as an
// exporter configuration. The schema refuses an unknown sampler.
func TestTracingValues(t *testing.T) {
	required := []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}"}
	render := func(t *testing.T, extra ...string) (*corev1.ConfigMap, *appsv1.Deployment) {
		t.Helper()
		args := append([]string{"template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion}, required...)
		run(t, append(append([]string{"lint", "--strict", chart, "--kube-version", kubeVersion}, required...), extra...)...)
		objs, err := decodeAll(run(t, append(args, extra...)...))
		if err != nil {
			t.Fatal(err)
		}
		return objs["ConfigMap"].(*corev1.ConfigMap), objs["Deployment"].(*appsv1.Deployment)
	}

	cm, d := render(t)
	for k := range cm.Data {
		if strings.HasPrefix(k, "OTEL_") {
			t.Errorf("tracing is off by default, but the ConfigMap sets %s", k)
		}
	}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if strings.HasPrefix(e.Name, "OTEL_") {
			t.Errorf("tracing is off by default, but the pod sets %s", e.Name)
		}
	}
	if on, err := tracing.Exporter(func(k string) string { return cm.Data[k] }); on || err != nil {
		t.Errorf("default values: tracing exporter on=%v err=%v, want off", on, err)
	}

	cm, d = render(t, "--set", "tracing.endpoint=http://otel-collector.observability:4318,tracing.sampler=parentbased_traceidratio,tracing.samplerArg=0.25")
	want := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector.observability:4318",
		"OTEL_SERVICE_NAME": "rel-paysession-connector", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"}
	for k, v := range want {
		if cm.Data[k] != v {
			t.Errorf("%s = %q, want %q", k, cm.Data[k], v)
		}
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e
	}
	if a := env["OTEL_RESOURCE_ATTRIBUTES"].Value; a != "k8s.pod.name=$(POD_NAME),k8s.namespace.name=$(POD_NAMESPACE)" {
		t.Errorf("OTEL_RESOURCE_ATTRIBUTES = %q", a)
	}
	for name, path := range map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"} {
		if f := env[name].ValueFrom; f == nil || f.FieldRef == nil || f.FieldRef.FieldPath != path {
			t.Errorf("%s = %+v, want the downward API's %s", name, env[name], path)
		}
	}
	if on, err := tracing.Exporter(func(k string) string { return cm.Data[k] }); !on || err != nil {
		t.Errorf("rendered tracing variables: exporter on=%v err=%v, want on", on, err)
	}

	out, err := helmFails(t, append([]string{"template", "rel", chart, "--kube-version", kubeVersion, "--set", "tracing.sampler=sometimes"}, required...)...)
	if err == nil || !strings.Contains(out, "sampler") {
		t.Errorf("tracing.sampler=sometimes rendered (err %v): %s", err, out)
	}
}
