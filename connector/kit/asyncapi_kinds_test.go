package kit_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/paysession/paysession/connector/kit"
)

// asyncAPISection is the part of the AsyncAPI document that describes the
// command kinds in one of its maps: what lies between From and To, one
// block per kind, each written by Block.
type asyncAPISection struct {
	From, To string
	Block    func(k asyncAPIKind) string
}

// asyncAPIKind is the spellings of a command kind in the document.
type asyncAPIKind struct {
	Kind, Topic, Variable string
	Lower, Upper          string // camel case: fpsVerification, FPSVerification
}

func asyncAPIKindOf(k kit.CommandKind) asyncAPIKind {
	parts := strings.Split(string(k), "_")
	var upper, rest strings.Builder
	for i, p := range parts {
		u := strings.ToUpper(p[:1]) + p[1:]
		if p == "fps" { // an acronym
			u = "FPS"
		}
		upper.WriteString(u)
		if i > 0 {
			rest.WriteString(u)
		}
	}
	lower := parts[0] + rest.String()
	return asyncAPIKind{Kind: string(k), Topic: kit.DefaultTopics().Commands[k],
		Variable: "PAYSESSION_TOPIC_" + strings.ToUpper(string(k)), Lower: lower, Upper: upper.String()}
}

// asyncAPICommandSections are the channels, operations and messages of the
// command kinds: each section ends where the document's first entry that is
// not a command kind's begins.
var asyncAPICommandSections = []asyncAPISection{
	{From: "\nchannels:\n", To: "\n  retry:\n", Block: func(k asyncAPIKind) string {
		return fmt.Sprintf(`  %[1]sCommands:
    address: %[3]s
    title: %[4]s commands
    description: '%[4]s commands, written by upstream systems; key = idempotency key. Variable %[5]s.'
    messages:
      %[1]s:
        $ref: '#/components/messages/%[2]sCommand'
    bindings:
      kafka:
        topic: %[3]s
        bindingVersion: '0.5.0'
`, k.Lower, k.Upper, k.Topic, k.Kind, k.Variable)
	}},
	{From: "\noperations:\n", To: "\n  receiveRetry:\n", Block: func(k asyncAPIKind) string {
		return fmt.Sprintf(`  receive%[2]s:
    action: receive
    title: execute %[3]s commands
    description: The command pipeline consumes the topic in its consumer group (PAYSESSION_KAFKA_GROUP_ID) with read_committed, and commits offsets only inside the transaction of the outcomes.
    channel:
      $ref: '#/channels/%[1]sCommands'
    messages:
      - $ref: '#/channels/%[1]sCommands/messages/%[1]s'
    x-isolation-level: read_committed
`, k.Lower, k.Upper, k.Kind)
	}},
	{From: "\n  messages:\n", To: "\n    ParkedCommand:\n", Block: func(k asyncAPIKind) string {
		return fmt.Sprintf(`    %[1]sCommand:
      name: %[1]sCommand
      title: %[2]s command
      summary: 'A %[2]s command: Confluent wire format, Avro single-object encoding, or strict JSON with the same field names.'
      contentType: application/octet-stream
      payload:
        schemaFormat: application/vnd.apache.avro+json;version=1.9.0
        schema:
          $ref: './%[2]s.avsc'
      headers:
        $ref: '#/components/schemas/CommandHeaders'
      bindings:
        kafka:
          key:
            $ref: '#/components/schemas/IdempotencyKey'
          schemaIdLocation: payload
          schemaIdPayloadEncoding: confluent
          schemaLookupStrategy: TopicIdStrategy
          bindingVersion: '0.5.0'
`, k.Upper, k.Kind)
	}},
}

// TestAsyncAPICommandsAreTheKinds keeps the document's channel, operation
// and message of every command kind equal to what the kit's kinds make of
// them, in the kinds' order; -update writes them.
func TestAsyncAPICommandsAreTheKinds(t *testing.T) {
	b, err := os.ReadFile(asyncAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, s := range asyncAPICommandSections {
		from := strings.Index(text, s.From)
		to := strings.Index(text[max(from, 0):], s.To)
		if from < 0 || to < 0 {
			t.Fatalf("%s: no section from %q to %q", asyncAPIPath, s.From, s.To)
		}
		start, end := from+len(s.From), from+to+1
		var want strings.Builder
		for _, k := range kit.Kinds() {
			want.WriteString(s.Block(asyncAPIKindOf(k)))
		}
		if got := text[start:end]; got != want.String() && !*update {
			t.Errorf("%s: the command kinds after %q are not what the kinds make of them (go test ./connector/kit -run %s -update)\n got:\n%s\nwant:\n%s",
				asyncAPIPath, strings.TrimSpace(s.From), t.Name(), got, want.String())
		}
		text = text[:start] + want.String() + text[end:]
	}
	if *update {
		if err := os.WriteFile(asyncAPIPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
