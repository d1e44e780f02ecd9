package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/kit"
)

// runProduce is `connector produce <kind>`: JSON commands from stdin, one
// per line, written to the kind's command topic in the configured wire
// format (Confluent with a registry, single-object Avro without; -format
// overrides). Each line is checked as the connector will check it (strict
// JSON, the command's fields, the key) before anything is written; the first
// bad line stops the run, naming its line number, after the lines before it
// were written.
func runProduce(ctx context.Context, args []string, env envconfig.Lookuper, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newCmdLine("produce", "<kind>", "Writes JSON commands from stdin, one per line, to the kind's command topic.\n\n"+kindsHelp(), 1, 1)
	key := fs.String("key", "", "idempotency key of the command (one line only)")
	keyField := fs.String("key-field", "idempotency_key", "top-level member of each line that holds its idempotency key (removed before the command is read)")
	format := fs.String("format", "", "json, avro (single-object) or confluent; default confluent with PAYSESSION_REGISTRY_URL, else avro")
	timeout := fs.Duration("timeout", 30*time.Second, "give up writing after this long")
	connect := fs.Duration("connect-timeout", 10*time.Second, "fail when the brokers do not answer within this long")
	pos, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	kind, err := parseKind(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "connector produce: %v\n", err)
		return exitUsage
	}
	cfg, ok := loadClientConfig(ctx, env, stderr)
	if !ok {
		return exitUsage
	}
	reg, err := connector.RegistryClient(cfg.Registry)
	if err != nil {
		fmt.Fprintf(stderr, "connector produce: %v\n", err)
		return exitUsage
	}
	f := kit.FormatSingleObject
	if reg != nil {
		f = kit.FormatConfluent
	}
	if *format != "" {
		if f, err = kit.ParseFormat(*format); err != nil {
			fmt.Fprintf(stderr, "connector produce: -format: %v\n", err)
			return exitUsage
		}
	}
	enc, err := kit.NewEncoder(kit.EncoderConfig{Format: f, Registry: reg, LookupOnly: cfg.Registry.LookupOnly, Topics: kitTopics(cfg.Topics)})
	if err != nil {
		fmt.Fprintf(stderr, "connector produce: %v\n", err)
		return exitUsage
	}
	cl, code := kafkaClient("produce", cfg.Kafka, stderr, kgo.RequiredAcks(kgo.AllISRAcks()))
	if cl == nil {
		return code
	}
	defer cl.Close()
	if err := cl.brokersAnswer(ctx, *connect); err != nil {
		fmt.Fprintf(stderr, "connector produce: %v\n", err)
		return exitFailed
	}
	pctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line, written := 0, 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if *key != "" && written > 0 {
			fmt.Fprintf(stderr, "connector produce: line %d: -key gives one key, and one key is one command: use -key-field for several lines\n", line)
			return exitUsage
		}
		rec, err := produceRecord(pctx, enc, kind, text, *key, *keyField)
		if err != nil {
			fmt.Fprintf(stderr, "connector produce: line %d: %v\n", line, err)
			return exitUsage
		}
		if err := cl.ProduceSync(pctx, rec).FirstErr(); err != nil {
			fmt.Fprintf(stderr, "connector produce: line %d: write %s: %v\n", line, rec.Topic, cl.explain(err))
			return exitFailed
		}
		written++
		fmt.Fprintf(stdout, "%s\t%s/%d@%d\n", rec.Key, rec.Topic, rec.Partition, rec.Offset)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(stderr, "connector produce: read stdin: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "produced: %d\n", written)
	return exitOK
}

// produceRecord reads one line: the key (from key, else the line's member
// keyField), then the rest of the line as a strict-JSON command of kind.
func produceRecord(ctx context.Context, enc *kit.Encoder, kind kit.CommandKind, line []byte, key, keyField string) (*kgo.Record, error) {
	body := line
	if key == "" {
		var err error
		if key, body, err = splitKey(line, keyField); err != nil {
			return nil, err
		}
	}
	cmd, err := kit.ParseJSON(kind, body)
	if err != nil {
		return nil, err
	}
	return enc.Record(ctx, key, cmd)
}

// splitKey returns the string member field of the JSON object line and the
// object without it. Every other member is kept as written, its name and
// value byte for byte and in its place, for the strict reading of the
// command: re-encoding would escape '<', '>' and '&' in metadata, which
// the connector passes on as written. Names compare after JSON unescaping
// and a duplicate top-level member is an error, as in the connector's
// strict JSON.
func splitKey(line []byte, field string) (string, []byte, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", nil, errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	var kept [][]byte
	var keyRaw json.RawMessage
	for dec.More() {
		from := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "", nil, fmt.Errorf("not a JSON object: %v", err)
		}
		name := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return "", nil, fmt.Errorf("member %s: %v", name, err)
		}
		if seen[name] {
			return "", nil, fmt.Errorf("duplicate member %s", name)
		}
		seen[name] = true
		// The member as written: past the comma and blanks before it.
		member := bytes.TrimLeft(line[from:dec.InputOffset()], " \t\r\n,")
		if name == field {
			keyRaw = raw
			continue
		}
		kept = append(kept, member)
	}
	if _, err := dec.Token(); err != nil {
		return "", nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return "", nil, errors.New("more than one JSON value on the line")
	}
	if keyRaw == nil {
		return "", nil, fmt.Errorf("no member %s holding the idempotency key (or give -key)", field)
	}
	var key string
	if err := json.Unmarshal(keyRaw, &key); err != nil {
		return "", nil, fmt.Errorf("member %s: the idempotency key must be a string", field)
	}
	rest := append(append([]byte("{"), bytes.Join(kept, []byte(","))...), '}')
	return key, rest, nil
}
