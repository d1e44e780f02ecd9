package control

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// TopicsPlanKey is the key of the record in which `connector topics apply`
// keeps the settings it applied (partitions, replication, ...), so that a
// later `topics verify` compares the cluster with them. It names no command
// kind; Reader skips it.
const TopicsPlanKey = "topics.plan"

// Record is the value of a control record: the state of the command kind
// its key names.
type Record struct {
	// Paused stops new API calls of the kind while true.
	Paused bool `json:"paused"`
	// By names who wrote the record (free text: the operator, a ticket).
	By string `json:"by,omitempty"`
	// At is when the record was written.
	At time.Time `json:"at"`
}

// Encode returns the record's JSON value.
func (r Record) Encode() []byte {
	b, _ := json.Marshal(r) // a bool, a string and a time: cannot fail
	return b
}

// Decode reads a control record's value; an empty value (a tombstone) is a
// running kind.
func Decode(value []byte) (Record, error) {
	var r Record
	if len(value) == 0 {
		return r, nil
	}
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Record{}, fmt.Errorf("control record: %w", err)
	}
	return r, nil
}
