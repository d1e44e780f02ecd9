package harness

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"sigs.k8s.io/yaml"

	"github.com/paysession/paysession/internal/config"
)

// DocumentedHeaders reads schemas/asyncapi.yaml and returns the headers of
// each channel, by channel address (the topic's default name): the
// properties of its messages' header schemas, through $ref and allOf.
func DocumentedHeaders() (map[string]map[string]bool, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, "schemas", "asyncapi.yaml"))
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("asyncapi.yaml: %w", err)
	}
	out := map[string]map[string]bool{}
	for name, ch := range object(doc["channels"]) {
		address, _ := object(ch)["address"].(string)
		hs := map[string]bool{}
		for _, m := range object(object(ch)["messages"]) {
			msg, err := resolve(doc, object(m))
			if err != nil {
				return nil, fmt.Errorf("channel %s: %w", name, err)
			}
			if msg["headers"] == nil {
				continue
			}
			if err := collectHeaders(doc, object(msg["headers"]), hs); err != nil {
				return nil, fmt.Errorf("channel %s: %w", name, err)
			}
		}
		out[address] = hs
	}
	return out, nil
}

// collectHeaders adds the properties of header schema s to hs.
func collectHeaders(doc, s map[string]any, hs map[string]bool) error {
	s, err := resolve(doc, s)
	if err != nil {
		return err
	}
	for h := range object(s["properties"]) {
		hs[h] = true
	}
	all, _ := s["allOf"].([]any)
	for _, part := range all {
		if err := collectHeaders(doc, object(part), hs); err != nil {
			return err
		}
	}
	return nil
}

// resolve follows a local $ref ("#/components/...") of o.
func resolve(doc, o map[string]any) (map[string]any, error) {
	ref, ok := o["$ref"].(string)
	if !ok {
		return o, nil
	}
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("$ref %q is not local", ref)
	}
	var at any = doc
	for _, seg := range strings.Split(path, "/") {
		at = object(at)[seg]
	}
	if at == nil {
		return nil, fmt.Errorf("$ref %q names nothing", ref)
	}
	return resolve(doc, object(at))
}

func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// CheckWrittenHeaders fails t for each header of records, written by the
// connector on the topics of vars (PAYSESSION_TOPIC_* → topic, as
// ConnectorTopics returns), that schemas/asyncapi.yaml does not describe
// on the record's channel (the channel whose address is the variable's
// default). It returns the headers seen on the topic of each variable, so
// that a test can insist on the ones its scenario must have produced.
func CheckWrittenHeaders(t testing.TB, vars map[string]string, records []*kgo.Record) map[string]map[string]bool {
	t.Helper()
	documented, err := DocumentedHeaders()
	if err != nil {
		t.Fatal(err)
	}
	variable, address := map[string]string{}, map[string]string{} // topic → variable, channel address
	for _, v := range config.Variables() {
		if topic, ok := vars[v.Name]; ok && strings.HasPrefix(v.Name, config.Prefix+"TOPIC_") {
			variable[topic], address[topic] = v.Name, v.Default
		}
	}
	seen := map[string]map[string]bool{}
	reported := map[string]bool{}
	for _, r := range records {
		v, ch := variable[r.Topic], address[r.Topic]
		if v == "" {
			t.Fatalf("record of topic %s, which is no topic of vars", r.Topic)
		}
		doc, ok := documented[ch]
		if !ok {
			t.Errorf("%s (%s) has no channel in schemas/asyncapi.yaml", v, ch)
			continue
		}
		if seen[v] == nil {
			seen[v] = map[string]bool{}
		}
		for _, h := range r.Headers {
			seen[v][h.Key] = true
			if doc[h.Key] || reported[ch+" "+h.Key] {
				continue
			}
			reported[ch+" "+h.Key] = true
			t.Errorf("the connector wrote header %s on %s (%s/%d@%d), which schemas/asyncapi.yaml does not describe on that channel",
				h.Key, ch, r.Topic, r.Partition, r.Offset)
		}
	}
	for v, hs := range seen {
		t.Logf("headers written on the topic of %s: %v", v, slices.Sorted(maps.Keys(hs)))
	}
	return seen
}
