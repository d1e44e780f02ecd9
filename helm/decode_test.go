package helm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// serviceMonitor is the part of the Prometheus operator's CRD the chart uses.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port          string `json:"port"`
			Path          string `json:"path"`
			Interval      string `json:"interval"`
			ScrapeTimeout string `json:"scrapeTimeout"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// newObject returns an empty object of the rendered kind.
func newObject(apiVersion, kind string) (any, error) {
	switch apiVersion + "/" + kind {
	case "apps/v1/Deployment":
		return &appsv1.Deployment{}, nil
	case "apps/v1/StatefulSet":
		return &appsv1.StatefulSet{}, nil
	case "v1/Service":
		return &corev1.Service{}, nil
	case "v1/ConfigMap":
		return &corev1.ConfigMap{}, nil
	case "v1/ServiceAccount":
		return &corev1.ServiceAccount{}, nil
	case "networking.k8s.io/v1/Ingress":
		return &networkingv1.Ingress{}, nil
	case "networking.k8s.io/v1/NetworkPolicy":
		return &networkingv1.NetworkPolicy{}, nil
	case "policy/v1/PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}, nil
	case "autoscaling/v2/HorizontalPodAutoscaler":
		return &autoscalingv2.HorizontalPodAutoscaler{}, nil
	case "monitoring.coreos.com/v1/ServiceMonitor":
		return &serviceMonitor{}, nil
	}
	return nil, fmt.Errorf("unexpected manifest %s %s", apiVersion, kind)
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// decodeAll decodes every manifest of a helm template output strictly: an
// unknown field (a typo in a template) is an error. Objects are keyed by kind.
func decodeAll(out []byte) (map[string]any, error) {
	objs := map[string]any{}
	for _, doc := range docSep.Split(string(out), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("yaml: %w\n%s", err, doc)
		}
		var tm metav1.TypeMeta
		if err := json.Unmarshal(js, &tm); err != nil {
			return nil, err
		}
		obj, err := newObject(tm.APIVersion, tm.Kind)
		if err != nil {
			return nil, err
		}
		if err := strictDecode(js, obj); err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", tm.Kind, err, doc)
		}
		if _, dup := objs[tm.Kind]; dup {
			return nil, fmt.Errorf("two %s manifests", tm.Kind)
		}
		objs[tm.Kind] = obj
	}
	return objs, nil
}

func strictDecode(js []byte, obj any) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	return dec.Decode(obj)
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
