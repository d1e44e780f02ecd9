package helm_test

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestStrimziSecrets renders the chart with the secrets Strimzi makes, as
// they come: a SCRAM KafkaUser's secret (key password; the user name is a
// value), an mTLS KafkaUser's secret (user.crt, user.key) with the cluster
// CA in a secret of its own, and an OAUTHBEARER token in a secret. Each is
// linted, decoded strictly, checked for the files mounted and the variables
// pointing at them, and accepted by the connector's configuration loader.
func TestStrimziSecrets(t *testing.T) {
	required := []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={my-cluster-kafka-bootstrap:9093}"}
	caSecret := []string{"--set", "kafka.tls.enabled=true,kafka.tls.caSecret=my-cluster-cluster-ca-cert,kafka.tls.caKey=ca.crt"}
	tests := []struct {
		name    string
		set     []string
		env     map[string]string // ConfigMap values, "" = must be absent
		volumes map[string][]string
		// userFromSecret: PAYSESSION_KAFKA_SASL_USERNAME comes from a secret key.
		userFromSecret bool
	}{
		{"scram", append(slices.Clone(caSecret), "--set", "kafka.sasl.mechanism=SCRAM-SHA-512,kafka.sasl.existingSecret=paysession,kafka.sasl.username=paysession"),
			map[string]string{
				"PAYSESSION_KAFKA_SASL_MECHANISM":     "SCRAM-SHA-512",
				"PAYSESSION_KAFKA_SASL_USERNAME":      "paysession",
				"PAYSESSION_KAFKA_SASL_PASSWORD_FILE": "/etc/paysession/kafka-sasl/password",
				"PAYSESSION_KAFKA_TLS_CA_FILE":        "/etc/paysession/kafka-tls-ca/ca.crt",
				"PAYSESSION_KAFKA_SASL_TOKEN_FILE":    "",
			},
			map[string][]string{"kafka-sasl": {"paysession", "password"}, "kafka-tls-ca": {"my-cluster-cluster-ca-cert", "ca.crt"}}, false},
		{"mtls", append(slices.Clone(caSecret), "--set", "kafka.tls.existingSecret=paysession,kafka.tls.certKey=user.crt,kafka.tls.keyKey=user.key"),
			map[string]string{
				"PAYSESSION_KAFKA_TLS_CERT_FILE":  "/etc/paysession/kafka-tls/user.crt",
				"PAYSESSION_KAFKA_TLS_KEY_FILE":   "/etc/paysession/kafka-tls/user.key",
				"PAYSESSION_KAFKA_TLS_CA_FILE":    "/etc/paysession/kafka-tls-ca/ca.crt",
				"PAYSESSION_KAFKA_SASL_MECHANISM": "",
			},
			map[string][]string{"kafka-tls": {"paysession"}, "kafka-tls-ca": {"my-cluster-cluster-ca-cert", "ca.crt"}}, false},
		{"oauthbearer", append(slices.Clone(caSecret), "--set", "kafka.sasl.mechanism=OAUTHBEARER,kafka.sasl.existingSecret=kafka-token,kafka.sasl.tokenKey=jwt"),
			map[string]string{
				"PAYSESSION_KAFKA_SASL_MECHANISM":     "OAUTHBEARER",
				"PAYSESSION_KAFKA_SASL_TOKEN_FILE":    "/etc/paysession/kafka-sasl/jwt",
				"PAYSESSION_KAFKA_SASL_PASSWORD_FILE": "",
				"PAYSESSION_KAFKA_SASL_USERNAME":      "",
			},
			map[string][]string{"kafka-sasl": {"kafka-token", "jwt"}}, false},
		{"scram with the user name in the secret", []string{"--set", "kafka.sasl.mechanism=SCRAM-SHA-512,kafka.sasl.existingSecret=creds"},
			map[string]string{"PAYSESSION_KAFKA_SASL_USERNAME": ""},
			map[string][]string{"kafka-sasl": {"creds", "password"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(slices.Clone(required), tt.set...)
			run(t, append([]string{"lint", "--strict", chart, "--kube-version", kubeVersion}, args...)...)
			out := run(t, append([]string{"template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion}, args...)...)
			objs, err := decodeAll(out)
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
			c := d.Spec.Template.Spec.Containers[0]
			fromSecret := slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
				return e.Name == "PAYSESSION_KAFKA_SASL_USERNAME" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
			})
			if fromSecret != tt.userFromSecret {
				t.Errorf("user name from a secret key: %v, want %v", fromSecret, tt.userFromSecret)
			}
			for name, want := range tt.volumes {
				v := volume(d, name)
				if v == nil || v.Secret == nil || v.Secret.SecretName != want[0] {
					t.Errorf("volume %s: %+v, want secret %s", name, v, want[0])
					continue
				}
				if len(want) > 1 && (len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != want[1]) {
					t.Errorf("volume %s items %+v, want only %s", name, v.Secret.Items, want[1])
				}
				if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == name && m.ReadOnly }) {
					t.Errorf("volume %s is not mounted read-only", name)
				}
			}
			checkEnv(t, d, cm)
		})
	}
}

// volume returns the pod's volume of that name, nil when none.
func volume(d *appsv1.Deployment, name string) *corev1.Volume {
	for i, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == name {
			return &d.Spec.Template.Spec.Volumes[i]
		}
	}
	return nil
}
