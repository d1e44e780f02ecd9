package helm_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// TestNetworkPolicy: the chart renders a NetworkPolicy by default that
// admits the webhook port from the ingress controller's namespace and the
// metrics port from the monitoring namespace, and nothing else (no rule
// without peers, no other port); the namespaces are values, the peer lists
// replace them, "" opens a port to anyone, and the policy can be turned
// off. The metrics port listens on the pod's IP unless metrics.bind is all.
func TestNetworkPolicy(t *testing.T) {
	required := []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}"}
	nsPeer := func(ns string) []string { return []string{"namespace " + ns} }
	tests := []struct {
		name   string
		values []string
		want   map[string][]string // port → peers (nil: anyone); nil map: no policy
	}{
		{"default", nil, map[string][]string{"webhook": nsPeer("ingress-nginx"), "metrics": nsPeer("monitoring")}},
		{"other namespaces", []string{"--set", "networkPolicy.webhook.namespace=gateway,networkPolicy.metrics.namespace=prometheus"},
			map[string][]string{"webhook": nsPeer("gateway"), "metrics": nsPeer("prometheus")}},
		{"peer lists instead", []string{"--set-json", `networkPolicy.webhookFrom=[{"ipBlock":{"cidr":"203.0.113.0/24"}}]`,
			"--set-json", `networkPolicy.metricsFrom=[{"namespaceSelector":{"matchLabels":{"team":"obs"}},"podSelector":{"matchLabels":{"app":"prometheus"}}}]`},
			map[string][]string{"webhook": {"ipBlock 203.0.113.0/24"}, "metrics": {"namespace team=obs, pods app=prometheus"}}},
		{"webhook open to anyone", []string{"--set", "networkPolicy.webhook.namespace="},
			map[string][]string{"webhook": nil, "metrics": nsPeer("monitoring")}},
		{"webhook off", []string{"--set", "webhook.enabled=false"}, map[string][]string{"metrics": nsPeer("monitoring")}},
		{"policy off", []string{"--set", "networkPolicy.enabled=false"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			values := append(append([]string{}, required...), tc.values...)
			run(t, append([]string{"lint", "--strict", chart, "--kube-version", kubeVersion}, values...)...)
			objs, err := decodeAll(run(t, append([]string{"template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion}, values...)...))
			if err != nil {
				t.Fatal(err)
			}
			np, _ := objs["NetworkPolicy"].(*networkingv1.NetworkPolicy)
			if tc.want == nil {
				if np != nil {
					t.Fatal("NetworkPolicy rendered, want none")
				}
				return
			}
			if np == nil {
				t.Fatal("no NetworkPolicy")
			}
			if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) {
				t.Errorf("policy types %v, want Ingress only", np.Spec.PolicyTypes)
			}
			d := objs["Deployment"].(*appsv1.Deployment)
			if got := np.Spec.PodSelector.MatchLabels; !selects(got, d.Spec.Template.Labels) || len(got) == 0 {
				t.Errorf("pod selector %v does not select the pods (labels %v)", got, d.Spec.Template.Labels)
			}
			got := map[string][]string{}
			for _, rule := range np.Spec.Ingress {
				if len(rule.Ports) != 1 || rule.Ports[0].Port == nil {
					t.Fatalf("rule %+v: want one named port", rule)
				}
				port := rule.Ports[0].Port.String()
				var peers []string
				for _, p := range rule.From {
					peers = append(peers, describePeer(p))
				}
				got[port] = peers
			}
			if len(got) != len(tc.want) {
				t.Errorf("rules for ports %v, want %v", got, tc.want)
			}
			for port, want := range tc.want {
				peers, ok := got[port]
				switch {
				case !ok:
					t.Errorf("no rule for port %s", port)
				case !slices.Equal(peers, want):
					t.Errorf("port %s admits %q, want %q", port, peers, want)
				}
			}
		})
	}
}

// describePeer writes a NetworkPolicyPeer as the test's tables do.
func describePeer(p networkingv1.NetworkPolicyPeer) string {
	var parts []string
	labels := func(m map[string]string) string {
		var kv []string
		for k, v := range m {
			kv = append(kv, k+"="+v)
		}
		slices.Sort(kv)
		return strings.Join(kv, ",")
	}
	if s := p.NamespaceSelector; s != nil {
		if name, ok := s.MatchLabels["kubernetes.io/metadata.name"]; ok && len(s.MatchLabels) == 1 && len(s.MatchExpressions) == 0 {
			parts = append(parts, "namespace "+name)
		} else {
			parts = append(parts, "namespace "+labels(s.MatchLabels))
		}
	}
	if s := p.PodSelector; s != nil {
		parts = append(parts, "pods "+labels(s.MatchLabels))
	}
	if b := p.IPBlock; b != nil {
		parts = append(parts, "ipBlock "+b.CIDR)
	}
	return strings.Join(parts, ", ")
}

func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// TestMetricsBind: by default the metrics port listens on the pod's IP
// (status.podIP, in brackets for IPv4 and IPv6 alike), set in the pod and
// not in the ConfigMap; with metrics.bind=all on every interface of the pod.
// The probes use the port by name, so they follow either way.
func TestMetricsBind(t *testing.T) {
	required := []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}"}
	for _, tc := range []struct {
		bind      string
		wantPod   string // PAYSESSION_METRICS_LISTEN_ADDR in the pod's env
		wantCM    string // ... in the ConfigMap
		wantPodIP bool
	}{
		{"", "[$(POD_IP)]:9090", "", true},
		{"podIP", "[$(POD_IP)]:9090", "", true},
		{"all", "", ":9090", false},
	} {
		t.Run("bind="+tc.bind, func(t *testing.T) {
			values := append([]string{}, required...)
			if tc.bind != "" {
				values = append(values, "--set", "metrics.bind="+tc.bind)
			}
			objs, err := decodeAll(run(t, append([]string{"template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion}, values...)...))
			if err != nil {
				t.Fatal(err)
			}
			c := objs["Deployment"].(*appsv1.Deployment).Spec.Template.Spec.Containers[0]
			cm := objs["ConfigMap"].(*corev1.ConfigMap)
			if got := envValue(c, "PAYSESSION_METRICS_LISTEN_ADDR"); got != tc.wantPod {
				t.Errorf("pod PAYSESSION_METRICS_LISTEN_ADDR = %q, want %q", got, tc.wantPod)
			}
			if got := cm.Data["PAYSESSION_METRICS_LISTEN_ADDR"]; got != tc.wantCM {
				t.Errorf("ConfigMap PAYSESSION_METRICS_LISTEN_ADDR = %q, want %q", got, tc.wantCM)
			}
			podIP := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool {
				return e.Name == "POD_IP" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.podIP"
			})
			addr := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "PAYSESSION_METRICS_LISTEN_ADDR" })
			if (podIP >= 0) != tc.wantPodIP || (tc.wantPodIP && podIP > addr) {
				t.Errorf("POD_IP from status.podIP at %d, the address at %d; want it set before the address: %v", podIP, addr, tc.wantPodIP)
			}
		})
	}
	out, err := helmFails(t, append([]string{"template", "rel", chart, "--kube-version", kubeVersion, "--set", "metrics.bind=localhost"}, required...)...)
	if err == nil || !strings.Contains(out, "bind") {
		t.Errorf("metrics.bind=localhost rendered (err %v): %s", err, out)
	}
}
