// Package control carries an operator's pause and resume of command kinds
// to every replica, through a compacted Kafka topic (PAYSESSION_TOPIC_CONTROL,
// default payments.control): whoever may write that topic may pause, and
// Kafka's ACLs decide who that is.
//
// A record's key is a command kind (capture, refund, ...); its value is the
// JSON document {"paused": true|false, "by": "who", "at": "RFC 3339 time"}
// (Record). The latest record of a kind is that kind's state; a kind with no
// record, or whose latest record is a tombstone, runs. `connector resume`
// writes {"paused": false} rather than a tombstone, so that the last offset
// of a partition always holds a record and a reader knows when it has read
// everything (Reader). The key TopicsPlanKey holds the settings `connector
// topics apply` applied, for `topics verify`; any other key that names no
// command kind is logged and ignored.
//
// Every replica reads the whole topic from its start, with no consumer
// group (every replica sees every record), and keeps following it (Reader).
package control
