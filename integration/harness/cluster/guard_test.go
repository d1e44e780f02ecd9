package cluster

import (
	"strings"
	"testing"
)

func TestCheckEnvironment(t *testing.T) {
	good := map[string]string{HostOverrideEnv: "127.0.0.1", RyukDisabledEnv: "true"}
	cases := []struct {
		name     string
		override map[string]string
		want     string // "" when accepted, else a part of the error
	}{
		{"loopback override, reaper off", nil, ""},
		{"localhost", map[string]string{HostOverrideEnv: "localhost"}, ""},
		{"unix docker host", map[string]string{"DOCKER_HOST": "unix:///var/run/docker.sock"}, ""},
		{"loopback tcp docker host", map[string]string{"DOCKER_HOST": "tcp://127.0.0.1:2375"}, ""},
		{"no override", map[string]string{HostOverrideEnv: ""}, HostOverrideEnv + " is not set"},
		{"override off the machine", map[string]string{HostOverrideEnv: "172.17.0.1"}, "not a loopback address"},
		{"override a name", map[string]string{HostOverrideEnv: "docker.example"}, "not a loopback address"},
		{"reaper on", map[string]string{RyukDisabledEnv: ""}, RyukDisabledEnv},
		{"remote docker host", map[string]string{"DOCKER_HOST": "tcp://10.0.0.5:2375"}, "DOCKER_HOST"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range good {
				env[k] = v
			}
			for k, v := range c.override {
				env[k] = v
			}
			err := CheckEnvironment(func(k string) string { return env[k] })
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted, want a refusal naming %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("refusal %q does not name %q", err, c.want)
			}
		})
	}
}

// TestStartRefusesWithoutOverride: Start checks the variables before it touches Docker, so it
// refuses on a machine without any.
func TestStartRefusesWithoutOverride(t *testing.T) {
	t.Setenv(HostOverrideEnv, "")
	t.Setenv(RyukDisabledEnv, "true")
	c, err := Start(t.Context(), Config{})
	if err == nil {
		_ = c.Close(t.Context())
		t.Fatal("Start started a cluster without " + HostOverrideEnv)
	}
	if !strings.Contains(err.Error(), HostOverrideEnv) {
		t.Fatalf("error %q does not name %s", err, HostOverrideEnv)
	}
}
