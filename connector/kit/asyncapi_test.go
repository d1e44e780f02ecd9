package kit_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/paysession/paysession/connector/ingress"
	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/tracing"
	"github.com/paysession/paysession/schemas"
)

// asyncAPIPath is the AsyncAPI document of the connector's topics.
const asyncAPIPath = "../../schemas/asyncapi.yaml"

type asyncAPIDoc struct {
	AsyncAPI string `json:"asyncapi"`
	Channels map[string]struct {
		Address  string `json:"address"`
		Messages map[string]struct {
			Ref string `json:"$ref"`
		} `json:"messages"`
		Bindings struct {
			Kafka struct {
				Topic              string              `json:"topic"`
				TopicConfiguration map[string][]string `json:"topicConfiguration"`
			} `json:"kafka"`
		} `json:"bindings"`
	} `json:"channels"`
	Operations map[string]struct {
		Action         string `json:"action"`
		IsolationLevel string `json:"x-isolation-level"`
		Channel        struct {
			Ref string `json:"$ref"`
		} `json:"channel"`
	} `json:"operations"`
	Components struct {
		Messages map[string]struct {
			Payload struct {
				SchemaFormat string `json:"schemaFormat"`
				Schema       struct {
					Ref string `json:"$ref"`
				} `json:"schema"`
			} `json:"payload"`
			Headers struct {
				Ref string `json:"$ref"`
			} `json:"headers"`
			Bindings struct {
				Kafka struct {
					Key map[string]any `json:"key"`
				} `json:"kafka"`
			} `json:"bindings"`
		} `json:"messages"`
		Schemas map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"schemas"`
	} `json:"components"`
}

func readAsyncAPI(t *testing.T) *asyncAPIDoc {
	t.Helper()
	b, err := os.ReadFile(asyncAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc asyncAPIDoc
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}

// TestAsyncAPIChannelsAreTheTopics: one channel per topic variable
// (PAYSESSION_TOPIC_*, at its default), each bound to its topic, with
// messages whose payload is the topic's .avsc, a key, and compaction where
// the connector requires it.
func TestAsyncAPIChannelsAreTheTopics(t *testing.T) {
	doc := readAsyncAPI(t)
	if !strings.HasPrefix(doc.AsyncAPI, "3.0") {
		t.Fatalf("asyncapi %q, want 3.0.x", doc.AsyncAPI)
	}
	topics := kit.DefaultTopics()
	var want, got []string
	var control string
	for _, v := range config.Variables() {
		if strings.HasPrefix(v.Name, config.Prefix+"TOPIC_") {
			want = append(want, v.Default)
		}
		if v.Name == config.Prefix+"TOPIC_CONTROL" {
			control = v.Default
		}
	}
	for name, ch := range doc.Channels {
		got = append(got, ch.Address)
		if ch.Bindings.Kafka.Topic != ch.Address {
			t.Errorf("channel %s: kafka binding topic %q, address %q", name, ch.Bindings.Kafka.Topic, ch.Address)
		}
		compact := slices.Contains(ch.Bindings.Kafka.TopicConfiguration["cleanup.policy"], "compact")
		if wantCompact := ch.Address == topics.Sessions || ch.Address == topics.Attempts || ch.Address == control; compact != wantCompact {
			t.Errorf("channel %s: compacted %v, want %v", name, compact, wantCompact)
		}
		// The control topic holds the pause records and the topic
		// settings `connector topics apply` recorded.
		if wantMessages := map[bool]int{true: 2, false: 1}[ch.Address == control]; len(ch.Messages) != wantMessages {
			t.Errorf("channel %s: %d messages, want %d", name, len(ch.Messages), wantMessages)
		}
		for _, m := range ch.Messages {
			msgName := strings.TrimPrefix(m.Ref, "#/components/messages/")
			msg, ok := doc.Components.Messages[msgName]
			if !ok {
				t.Errorf("channel %s: message %s is not a component", name, m.Ref)
				continue
			}
			if len(msg.Bindings.Kafka.Key) == 0 {
				t.Errorf("message %s: no kafka key", msgName)
			}
			schema, avro := topics.Schema(ch.Address)
			if ch.Address == topics.Retry || ch.Address == topics.Attempts || ch.Address == control {
				avro = false // the retry topic holds any command value; attempt marks are text; control records JSON
			}
			ref := msg.Payload.Schema.Ref
			switch {
			case avro && ref != "./"+string(schema)+".avsc":
				t.Errorf("channel %s: payload %q, want ./%s.avsc", name, ref, schema)
			case avro && !strings.HasPrefix(msg.Payload.SchemaFormat, "application/vnd.apache.avro"):
				t.Errorf("channel %s: schemaFormat %q", name, msg.Payload.SchemaFormat)
			case !avro && ref != "":
				t.Errorf("channel %s: payload %q, want no .avsc", name, ref)
			}
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("channels %v\nwant the topics %v", got, want)
	}
	for _, n := range schemas.All() {
		if _, err := os.Stat(filepath.Join("../../schemas", string(n)+".avsc")); err != nil {
			t.Error(err)
		}
	}
}

// TestAsyncAPIOperationsReadCommitted: every channel has an operation, and
// every operation names read_committed as the isolation of its readers.
func TestAsyncAPIOperationsReadCommitted(t *testing.T) {
	doc := readAsyncAPI(t)
	covered := map[string]bool{}
	for name, op := range doc.Operations {
		if op.IsolationLevel != "read_committed" {
			t.Errorf("operation %s: x-isolation-level %q", name, op.IsolationLevel)
		}
		if op.Action != "send" && op.Action != "receive" {
			t.Errorf("operation %s: action %q", name, op.Action)
		}
		covered[strings.TrimPrefix(op.Channel.Ref, "#/channels/")] = true
	}
	for name := range doc.Channels {
		if !covered[name] {
			t.Errorf("channel %s has no operation", name)
		}
	}
}

// TestAsyncAPIHeadersAreTheCodes: the headers described are exactly those
// the connector writes (the constants of internal/header, ingress, reconcile,
// the session writer and tracing; integration tests compare them with the
// headers of the records the connector actually writes: harness.CheckWrittenHeaders),
// and the kit's constants are the same names.
func TestAsyncAPIHeadersAreTheCodes(t *testing.T) {
	written := []string{
		header.RecordTime, header.Key, header.Kind, header.SourceTopic,
		header.SourcePartition, header.SourceOffset, header.Attempts,
		header.NextAttempt, header.FirstAttempt, header.Sent, header.FirstSeen,
		header.DecodeFailures, header.Redrive, header.Lane, header.Error,
		header.ErrorField, header.ErrorCode, header.DeadLetterValue,
		header.DeadLetterOriginalSize, header.DeadLetterHeaders, header.RedriveCount, header.Redriven,
		header.ConnectTopic, header.ConnectPartition, header.ConnectOffset, header.ConnectMessage,
		ingress.HeaderEventID, ingress.HeaderWebhookType,
		reconcile.HeaderWarning, reconcile.HeaderConfirmDeadline, reconcile.HeaderAgeFrom,
		header.Withheld, tracing.HeaderTraceParent, tracing.HeaderTraceState,
		// The session writer's own headers on the updates topic.
		sessionwriter.HeaderRepublish, sessionwriter.HeaderOrigin,
	}
	doc := readAsyncAPI(t)
	described := map[string]bool{}
	for _, s := range doc.Components.Schemas {
		for h := range s.Properties {
			described[h] = true
		}
	}
	for _, h := range written {
		if !described[h] {
			t.Errorf("header %s is written by the connector but not described", h)
		}
		delete(described, h)
	}
	for h := range described {
		if strings.HasPrefix(h, "paysession-") {
			t.Errorf("header %s is described but the connector writes no such header", h)
		}
	}
	pairs := [][2]string{ // {the kit's name, the connector's}
		{kit.HeaderEventID, ingress.HeaderEventID},
		{kit.HeaderWebhookType, ingress.HeaderWebhookType},
		{kit.HeaderWarning, reconcile.HeaderWarning},
		{kit.HeaderConfirmDeadline, reconcile.HeaderConfirmDeadline},
		{kit.HeaderAgeFrom, reconcile.HeaderAgeFrom},
		{kit.WarningConfirmDeadline, reconcile.WarningConfirmDeadline},
		{kit.WarningStale, reconcile.WarningStale},
		{kit.HeaderError, header.Error},
		{kit.HeaderErrorField, header.ErrorField},
		{kit.HeaderErrorCode, header.ErrorCode},
		{kit.HeaderKind, header.Kind},
		{kit.HeaderDeadLetterValue, header.DeadLetterValue},
		{kit.HeaderDeadLetterOriginalSize, header.DeadLetterOriginalSize},
		{kit.HeaderRecordTime, header.RecordTime},
		{kit.HeaderRedrive, header.Redrive},
		{kit.HeaderRedriven, header.Redriven},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("kit says %q, the connector writes %q", p[0], p[1])
		}
	}
}
