package cluster

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// The variables testcontainers-go reads that keep it on this machine.
const (
	HostOverrideEnv = "TESTCONTAINERS_HOST_OVERRIDE"
	RyukDisabledEnv = "TESTCONTAINERS_RYUK_DISABLED"
)

// CheckEnvironment reports why testcontainers-go may not be started with these variables, nil
// when it may. It refuses:
//   - TESTCONTAINERS_HOST_OVERRIDE missing or not a loopback address: without it testcontainers
//     takes the host of the Docker endpoint or the bridge gateway and may dial an address outside
//     this machine;
//   - TESTCONTAINERS_RYUK_DISABLED other than true: the reaper's image cannot be pulled here, and
//     the cluster removes its own containers, network and volumes;
//   - a DOCKER_HOST that is neither a unix socket nor a loopback address.
func CheckEnvironment(getenv func(string) string) error {
	var errs []error
	switch host := getenv(HostOverrideEnv); {
	case host == "":
		errs = append(errs, fmt.Errorf("%s is not set: set it to 127.0.0.1, or testcontainers may dial an address outside this machine", HostOverrideEnv))
	case !loopback(host):
		errs = append(errs, fmt.Errorf("%s=%q is not a loopback address: set it to 127.0.0.1", HostOverrideEnv, host))
	}
	if v := getenv(RyukDisabledEnv); v != "true" {
		errs = append(errs, fmt.Errorf("%s=%q: set it to true (the reaper image cannot be pulled; the cluster removes its own containers)", RyukDisabledEnv, v))
	}
	if dh := getenv("DOCKER_HOST"); dh != "" {
		u, err := url.Parse(dh)
		if err != nil || (u.Scheme != "unix" && !(u.Scheme == "tcp" && loopback(u.Hostname()))) {
			errs = append(errs, fmt.Errorf("DOCKER_HOST=%q is neither a unix socket nor a loopback address", dh))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("refusing to start containers: %w", errors.Join(errs...))
	}
	return nil
}

// loopback reports whether host is localhost or a loopback IP address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
