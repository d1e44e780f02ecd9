package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/soe"

	"github.com/paysession/paysession/internal/codec"
)

// decodeOutcome decodes an outcome value written without a registry (Avro
// single-object encoding whose fingerprint is the record's current schema).
func decodeOutcome(b []byte, v codec.Record) error {
	s, err := codec.Schema(v.SchemaName())
	if err != nil {
		return err
	}
	fp := codec.Fingerprint(s)
	if len(b) < 10 || !bytes.Equal(b[:2], soe.Magic) {
		if len(b) > 0 && b[0] == 0 {
			return errors.New("value is in the Confluent wire format: redrive with a schema registry is not supported yet")
		}
		return errors.New("value is not Avro single-object encoded")
	}
	if !bytes.Equal(b[2:10], fp[:]) {
		return fmt.Errorf("%s: unknown schema fingerprint %x", v.SchemaName(), b[2:10])
	}
	return avro.Unmarshal(s, b[10:], v)
}

func codecsForRedrive() (struct{}, func([]byte) (*codec.DeadLetter, error), error) {
	return struct{}{}, func(b []byte) (*codec.DeadLetter, error) {
		var d codec.DeadLetter
		if err := decodeOutcome(b, &d); err != nil {
			return nil, err
		}
		return &d, nil
	}, nil
}

func newFlagSet(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("connector "+name, flag.ContinueOnError)
	fs.SetOutput(out)
	return fs
}
