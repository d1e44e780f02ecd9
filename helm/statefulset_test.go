package helm_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

// TestStatefulSetMode (issue 18): workload=StatefulSet renders a
// StatefulSet instead of the Deployment, governed by the chart's Service,
// whose pods take their name as PAYSESSION_KAFKA_INSTANCE_ID and join their
// groups as static members; the HPA scales it; the pod keeps the
// Deployment's hardening, probes and grace; the connector's configuration
// loader accepts the rendered environment.
func TestStatefulSetMode(t *testing.T) {
	required := []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}"}
	for _, tc := range []struct {
		name   string
		values []string
		hpa    bool
	}{
		{"required values", append([]string{"--set", "workload=StatefulSet"}, required...), false},
		{"full values", []string{"-f", chart + "/ci/full-values.yaml", "--set", "workload=StatefulSet"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run(t, append([]string{"lint", "--strict", chart, "--kube-version", kubeVersion}, tc.values...)...)
			out := run(t, append([]string{"template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion}, tc.values...)...)
			objs, err := decodeAll(out)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := objs["Deployment"]; ok {
				t.Fatal("a Deployment is rendered in StatefulSet mode")
			}
			sts, ok := objs["StatefulSet"].(*appsv1.StatefulSet)
			if !ok {
				t.Fatal("no StatefulSet rendered")
			}
			svc := objs["Service"].(*corev1.Service)
			if sts.Spec.ServiceName != svc.Name || sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
				t.Errorf("serviceName %q (Service %q), podManagementPolicy %q; want the chart's Service and Parallel",
					sts.Spec.ServiceName, svc.Name, sts.Spec.PodManagementPolicy)
			}
			env := map[string]corev1.EnvVar{}
			for _, e := range sts.Spec.Template.Spec.Containers[0].Env {
				env[e.Name] = e
			}
			id := env["PAYSESSION_KAFKA_INSTANCE_ID"]
			if id.ValueFrom == nil || id.ValueFrom.FieldRef == nil || id.ValueFrom.FieldRef.FieldPath != "metadata.name" {
				t.Errorf("PAYSESSION_KAFKA_INSTANCE_ID = %+v, want the pod's name (fieldRef metadata.name)", id)
			}
			if v := env["PAYSESSION_KAFKA_STATIC_MEMBERSHIP"].Value; v != "true" {
				t.Errorf("PAYSESSION_KAFKA_STATIC_MEMBERSHIP = %q, want true", v)
			}
			if hpa, ok := objs["HorizontalPodAutoscaler"].(*autoscalingv2.HorizontalPodAutoscaler); ok != tc.hpa ||
				(ok && (hpa.Spec.ScaleTargetRef.Kind != "StatefulSet" || hpa.Spec.ScaleTargetRef.Name != sts.Name)) {
				t.Errorf("HPA rendered %v (want %v), target %+v", ok, tc.hpa, objs["HorizontalPodAutoscaler"])
			}
			// The pod is the Deployment's: same checks, same configuration.
			d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: sts.Spec.Template}}
			grace := map[bool][2]int64{false: {30, 40}, true: {45, 65}}[tc.hpa]
			checkPod(t, d, grace[0], grace[1])
			checkEnv(t, d, objs["ConfigMap"].(*corev1.ConfigMap))
		})
	}
}

// TestWorkloadKindIsChecked: the values schema accepts only the two kinds.
func TestWorkloadKindIsChecked(t *testing.T) {
	out, err := helmFails(t, "template", "rel", chart, "--kube-version", kubeVersion, "--set", "workload=DaemonSet",
		"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}")
	if err == nil || !strings.Contains(out, "workload") {
		t.Fatalf("workload=DaemonSet rendered (err %v): %s", err, out)
	}
}
