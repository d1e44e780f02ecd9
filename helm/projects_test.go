package helm_test

import (
	"bytes"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// TestExtraProjects: each of keys.extraProjects has its private key mounted
// read-only from its own Secret, PAYSESSION_API_EXTRA_PROJECTS names each
// project with the path of its mounted key, and the Ingress routes each
// project's webhook path (webhook.path/<id>) to the webhook port.
func TestExtraProjects(t *testing.T) {
	out := run(t, "template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion,
		"-f", chart+"/ci/full-values.yaml")
	objs, err := decodeAll(out)
	if err != nil {
		t.Fatal(err)
	}
	cm := objs["ConfigMap"].(*corev1.ConfigMap)
	pod := objs["Deployment"].(*appsv1.Deployment).Spec.Template.Spec
	want := map[string]struct{ secret, key string }{
		"proj-43":   {"paysession-proj-43-key", "private-key.pem"},
		"shop.eu:7": {"paysession-shop-eu-keys", "shop-eu-7.pem"},
	}
	entries := strings.Split(cm.Data["PAYSESSION_API_EXTRA_PROJECTS"], ",")
	if len(entries) != len(want) {
		t.Fatalf("PAYSESSION_API_EXTRA_PROJECTS = %q, want %d projects", cm.Data["PAYSESSION_API_EXTRA_PROJECTS"], len(want))
	}
	for _, e := range entries {
		id, file, _ := strings.Cut(e, "=")
		w, ok := want[id]
		if !ok {
			t.Errorf("unexpected project entry %q", e)
			continue
		}
		if path.Base(file) != w.key {
			t.Errorf("project %s: key file %s, want one named %s", id, file, w.key)
		}
		mount := mountOf(pod.Containers[0], path.Dir(file))
		if mount == nil || !mount.ReadOnly {
			t.Errorf("project %s: %s is not a read-only mount: %+v", id, path.Dir(file), mount)
			continue
		}
		vol := volumeOf(pod, mount.Name)
		if vol == nil || vol.Secret == nil || vol.Secret.SecretName != w.secret ||
			!slices.ContainsFunc(vol.Secret.Items, func(k corev1.KeyToPath) bool { return k.Key == w.key && k.Path == w.key }) {
			t.Errorf("project %s: volume %+v, want Secret %s with its key %s", id, vol, w.secret, w.key)
		}
	}

	ing := objs["Ingress"].(*networkingv1.Ingress)
	var paths []string
	for _, p := range ing.Spec.Rules[0].HTTP.Paths {
		if p.PathType == nil || *p.PathType != networkingv1.PathTypeExact || p.Backend.Service.Port.Name != "webhook" {
			t.Errorf("ingress path %s is not Exact to the webhook port", p.Path)
		}
		paths = append(paths, p.Path)
	}
	if wantPaths := []string{"/hooks/paysession", "/hooks/paysession/proj-43", "/hooks/paysession/shop.eu:7"}; !slices.Equal(paths, wantPaths) {
		t.Errorf("ingress paths %v, want %v", paths, wantPaths)
	}
}

// TestExtraProjectIDsAreChecked: the values schema refuses a project id
// that could not stand in PAYSESSION_API_EXTRA_PROJECTS (a comma) or as one
// segment of the webhook path (/ ? # %), and an entry without its Secret.
func TestExtraProjectIDsAreChecked(t *testing.T) {
	for _, set := range []string{
		"keys.extraProjects[0].id=shop/2,keys.extraProjects[0].existingSecret=s,keys.extraProjects[0].key=k.pem",
		"keys.extraProjects[0].id=shop%2,keys.extraProjects[0].existingSecret=s,keys.extraProjects[0].key=k.pem",
		"keys.extraProjects[0].id=shop 2,keys.extraProjects[0].existingSecret=s,keys.extraProjects[0].key=k.pem",
		"keys.extraProjects[0].id=shop2,keys.extraProjects[0].key=k.pem",
	} {
		cmd := exec.Command(helm(t), "template", "rel", chart, "--kube-version", kubeVersion, "--set", set)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "extraProjects") {
			t.Errorf("--set %s: rendered (%v), want a schema error naming extraProjects: %s", set, err, stderr.String())
		}
	}
}

func mountOf(c corev1.Container, dir string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].MountPath == dir {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

func volumeOf(pod corev1.PodSpec, name string) *corev1.Volume {
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == name {
			return &pod.Volumes[i]
		}
	}
	return nil
}
