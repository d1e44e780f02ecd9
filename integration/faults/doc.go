// Package faults is the fault suite of issue 9 (make faults; a small size
// runs in make test): scenarios on the real Kafka broker, the sandbox
// (cmd/paysim) and the connector (cmd/connector run) as separate
// processes, each checked by an oracle that compares three sets — the
// command records produced, the sandbox's executions and ledger (its admin
// endpoints), and the outcome records read with read_committed.
//
// See the framework API below; the files are process, sandbox, connector,
// rig, outcomes and oracle (*_test.go), one scenario per file.
package faults
