package codec

import (
	"fmt"
	"sync"

	"github.com/twmb/avro"

	"github.com/paysession/paysession/schemas"
)

// soeMagic is the two-byte marker of the Avro single-object encoding.
var soeMagic = []byte{0xC3, 0x01}

// Every decode of the codec is bounded by the size of its input: the Avro
// library refuses a block count, a string, bytes or map length that the
// remaining bytes cannot hold (and caps arrays of zero-byte items), so a
// record of n bytes costs O(n) time and memory whatever its writer schema.

type parsedSchemas struct {
	current map[schemas.Name]*avro.Schema
	// byFingerprint maps a schema's CRC-64-AVRO fingerprint to the schema,
	// for the current and every released version.
	byFingerprint map[schemas.Name]map[[8]byte]*avro.Schema
}

var loadSchemas = sync.OnceValues(func() (*parsedSchemas, error) {
	p := &parsedSchemas{
		current:       map[schemas.Name]*avro.Schema{},
		byFingerprint: map[schemas.Name]map[[8]byte]*avro.Schema{},
	}
	for _, n := range schemas.All() {
		if err := p.load(n); err != nil {
			return nil, err
		}
	}
	return p, nil
})

func (p *parsedSchemas) load(n schemas.Name) error {
	text, err := schemas.Get(n)
	if err != nil {
		return err
	}
	s, err := ParseSchema(text)
	if err != nil {
		return fmt.Errorf("schema %s: %w", n, err)
	}
	p.current[n] = s
	p.byFingerprint[n] = map[[8]byte]*avro.Schema{fingerprint(s): s, hambaFingerprint(s): s}
	versions, err := schemas.History(n)
	if err != nil {
		return err
	}
	for _, v := range versions {
		hs, err := ParseSchema(v.Text)
		if err != nil {
			return fmt.Errorf("schema %s v%d: %w", n, v.Version, err)
		}
		for _, fp := range [][8]byte{fingerprint(hs), hambaFingerprint(hs)} {
			if _, ok := p.byFingerprint[n][fp]; !ok {
				p.byFingerprint[n][fp] = hs
			}
		}
	}
	return nil
}

// ParseSchema parses an Avro schema in isolation (its own named types), so
// that two versions of the same named types never mix.
func ParseSchema(text string) (*avro.Schema, error) {
	return avro.Parse(text)
}

// Schema returns the parsed current schema of n.
func Schema(n schemas.Name) (*avro.Schema, error) {
	p, err := loadSchemas()
	if err != nil {
		return nil, err
	}
	s, ok := p.current[n]
	if !ok {
		return nil, fmt.Errorf("unknown schema %q", n)
	}
	return s, nil
}

// MustSchema is Schema for names known at compile time; it panics on error.
func MustSchema(n schemas.Name) *avro.Schema {
	s, err := Schema(n)
	if err != nil {
		panic(err)
	}
	return s
}

// fingerprints caches fingerprint per schema value: computing it costs more
// than encoding a record, and the codec asks for it on every Encode and on
// every decode that resolves a writer schema.
var fingerprints sync.Map // *avro.Schema -> [8]byte

// fingerprint returns the spec CRC-64-AVRO fingerprint of s (little-endian).
func fingerprint(s *avro.Schema) [8]byte {
	if fp, ok := fingerprints.Load(s); ok {
		return fp.([8]byte)
	}
	fp := Fingerprint(s)
	fingerprints.Store(s, fp)
	return fp
}
