package harness

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The files a broker keeps in its directory.
const (
	serverPropsFile = "server.properties"
	log4jFile       = "log4j2.properties"
	logFile         = "broker.log"
	dataDir         = "data"
)

// brokerProperties returns the server.properties of a single-node KRaft broker+controller on the
// given loopback ports, sized for tests: replication factor 1 for the internal topics, no initial
// rebalance delay, no auto-created topics (tests create theirs), few internal partitions so the
// first group or transaction does not wait for 50 partitions to load. extra overrides any of them.
func brokerProperties(dir string, port, controllerPort int, extra map[string]string) map[string]string {
	const nodeID = 1
	p := map[string]string{
		"process.roles":                                    "broker,controller",
		"node.id":                                          fmt.Sprint(nodeID),
		"controller.quorum.voters":                         fmt.Sprintf("%d@127.0.0.1:%d", nodeID, controllerPort),
		"listeners":                                        fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", port, controllerPort),
		"advertised.listeners":                             fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", port),
		"controller.listener.names":                        "CONTROLLER",
		"inter.broker.listener.name":                       "PLAINTEXT",
		"listener.security.protocol.map":                   "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs":                                         filepath.Join(dir, dataDir),
		"num.partitions":                                   "1",
		"default.replication.factor":                       "1",
		"min.insync.replicas":                              "1",
		"offsets.topic.replication.factor":                 "1",
		"offsets.topic.num.partitions":                     "5",
		"transaction.state.log.replication.factor":         "1",
		"transaction.state.log.min.isr":                    "1",
		"transaction.state.log.num.partitions":             "5",
		"share.coordinator.state.topic.replication.factor": "1",
		"share.coordinator.state.topic.min.isr":            "1",
		"group.initial.rebalance.delay.ms":                 "0",
		"auto.create.topics.enable":                        "false",
		"delete.topic.enable":                              "true",
		"num.network.threads":                              "2",
		"num.io.threads":                                   "4",
	}
	maps.Copy(p, extra)
	return p
}

// joinProperties turns the properties p of brokerProperties into those of broker-only node id on
// port, registering with the controller of node controllerID at controllerPort. The overrides
// already in p are kept, except these.
func joinProperties(p map[string]string, id, port, controllerID, controllerPort int) {
	p["process.roles"] = "broker"
	p["node.id"] = fmt.Sprint(id)
	p["controller.quorum.voters"] = fmt.Sprintf("%d@127.0.0.1:%d", controllerID, controllerPort)
	p["listeners"] = fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", port)
}

// readClusterID returns the cluster id of the formatted broker in dir (its meta.properties).
func readClusterID(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, dataDir, "meta.properties"))
	if err != nil {
		return "", fmt.Errorf("cluster id: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "cluster.id="); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("cluster id: no cluster.id in %s", filepath.Join(dir, dataDir, "meta.properties"))
}

// writeProperties writes p sorted by key, so two runs produce the same file.
func writeProperties(path string, p map[string]string) error {
	var b strings.Builder
	b.WriteString("# Written by integration/harness; rewritten on every start.\n")
	for _, k := range slices.Sorted(maps.Keys(p)) {
		fmt.Fprintf(&b, "%s=%s\n", k, p[k])
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// log4jConfig sends the broker's log to standard output, which the launcher appends to broker.log.
// The configuration dumps of every client and component are turned down to keep that file short.
const log4jConfig = `status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d{ISO8601}] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.out.ref = out
logger.config.name = org.apache.kafka.common.config
logger.config.level = warn
logger.request.name = kafka.request.logger
logger.request.level = warn
logger.statechange.name = state.change.logger
logger.statechange.level = warn
`

// formatStorage formats the data directory as a node of cluster id (a new single-node cluster when
// id is empty) unless it already holds one (a restart keeps the data). The controller quorum is
// the static voter set of the properties, so the tool needs neither --standalone nor
// --initial-controllers.
func formatStorage(ctx context.Context, java, libs, dir, id string) error {
	if _, err := os.Stat(filepath.Join(dir, dataDir, "meta.properties")); err == nil {
		return nil
	}
	if id == "" {
		var err error
		if id, err = NewClusterID(); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dlog4j2.configurationFile="+filepath.Join(dir, log4jFile),
		"-cp", filepath.Join(libs, "*"), "kafka.tools.StorageTool", "format",
		"--cluster-id", id, "--config", filepath.Join(dir, serverPropsFile))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("format storage: %w\n%s", err, tail(out, 20))
	}
	return nil
}

// NewClusterID returns a random cluster id in Kafka's Uuid text form (22 base64url characters), never
// starting with '-' (which the tools would read as a flag), as Uuid.randomUuid does.
func NewClusterID() (string, error) {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("cluster id: %w", err)
		}
		if id := base64.RawURLEncoding.EncodeToString(b[:]); id[0] != '-' {
			return id, nil
		}
	}
}

// FreePorts returns n distinct loopback ports that were free a moment ago.
func FreePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		listeners = append(listeners, l)
		addr, ok := l.Addr().(*net.TCPAddr)
		if !ok {
			return nil, errors.New("free port: not a TCP address")
		}
		ports = append(ports, addr.Port)
	}
	return ports, nil
}

// javaPath returns $JAVA_HOME/bin/java when JAVA_HOME is set, otherwise java from PATH.
func javaPath() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", errors.New("java not found: install Java 17+ or set JAVA_HOME")
	}
	return p, nil
}

// readTail returns the last n lines of the file at path (its last 64 KiB at most).
func readTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	const window = 64 << 10
	st, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	off := max(st.Size()-window, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	return tail(buf, n)
}
