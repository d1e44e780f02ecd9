// Package faults is the fault suite of issue 9: scenarios on the real Kafka
// broker, the sandbox (cmd/paysim) and the connector (cmd/connector run) as
// separate processes, each checked by an oracle that compares three sets —
// the command records produced, what the sandbox executed and booked (its
// admin endpoints /admin/executions, /admin/ledger, /admin/webhooks), and
// the outcome records read with read_committed.
//
// make faults runs it at full size (FAULTS_SCALE=full) with -v; make test
// runs it at a small size. Every scenario adds one row to a table printed at
// the end of the run and written as JSON to .cache/faults.json
// (.cache/faults-small.json at the small size; -faults.out overrides).
// Random choices are seeded (-faults.seed or FAULTS_SEED, default 1) and
// each scenario logs its seed.
//
// # Writing a scenario
//
// One file per scenario, one test function:
//
//	func TestMyFault(t *testing.T) {
//		t.Parallel()
//		n := size("FAULTS_MY_COMMANDS", 100, 5_000) // small (make test), full (make faults)
//		start := time.Now()
//		r := NewRig(t, RigOptions{SandboxFlags: []string{"-error-rate", "0.2"}, Webhooks: true})
//		r.Produce(t, payouts(r.ID, 0, n)...)      // records and their positions land in r.Produced
//		// ... the fault: r.Connector.Kill(); r.Connector.Restart(t); POST paysim /admin/faults ...
//		r.Outcomes.AwaitAnswered(t, r.Produced, 5*time.Minute)
//		row := Oracle(t, r, Row{Scenario: "3 sandbox faults", Seed: seed()}, acceptedOnce)
//		row.WallSeconds = time.Since(start).Seconds()
//		Check(t, row) // fails on any loss/duplicate column; adds the row to the table
//	}
//
// The parts, each usable alone:
//
//   - NewRig creates every topic of the connector (unique names, deleted
//     with kadm when the test ends), starts paysim -dev-keys on a free
//     loopback port (RigOptions.SandboxFlags: its fault knobs) and `connector
//     run` configured only by PAYSESSION_* variables (RigOptions.Env
//     overrides them: a unique group id and transactional id prefix per rig,
//     webhook and ops endpoints on free loopback ports, reconciler off),
//     and reads the outcomes. RigOptions.Brokers lets a broker fault test
//     pass a harness.StartTestBroker's address; RigOptions.Webhooks makes
//     paysim post its webhooks to the connector (-webhook-url);
//     RigOptions.TopicConfigs sets configs of a topic on creation (by its
//     variable), MaxRecordBytes raises the rig producer's batch limit, and
//     CountAPICalls puts a proxy counting requests per idempotency key
//     (Rig.APICalls; replays included, which the sandbox's executions
//     leave out) between the connector and the sandbox; it can hold
//     requests (Hold, Release). Registry starts an in-process fake schema
//     registry (srfake) for the connector and the outcome reader (Avro
//     commands, Confluent-framed outcomes; Rig.Registry), and
//     ExtraProjects gives the connector further partner projects
//     (PAYSESSION_API_EXTRA_PROJECTS) that the sandbox does not know.
//   - Process is one child in its own process group with its log under
//     t.TempDir() (the tail is printed when the test failed): Kill (SIGKILL,
//     waits for the exit), Restart (same command line, env, log file), Stop
//     (SIGTERM, then SIGKILL; done in t.Cleanup). The binaries are built once
//     per test binary run (go build into a temporary directory).
//   - Sandbox (a Process) reads the admin endpoints: Executions, Ledger,
//     Webhooks, WaitIdle. Connector (a Process) waits for /readyz on start
//     and Restart; Readyz reads it once (status and body). StartConnector starts more connectors of the same env
//     (scaling; note that `connector run` takes its transactional id suffix
//     from the host name, so processes on one host share it).
//   - Rig.Produce writes JSON commands (Payout builds an init_payout to
//     the sandbox's succeeding test card) in one produce call and notes
//     their positions. Outcomes holds results, dead letters and webhook
//     events read so far.
//   - Oracle fills a Row; a Verdict says whether one record's results
//     are the ones the scenario's contract asks for (column wrong).
//
// # The oracle's columns
//
// The oracle counts per command record (its topic, partition and offset,
// which every result carries as source_topic/partition/offset), not per
// idempotency key, because the contract is one result per consumed record:
//
//   - commands: records produced; results: result records answering them.
//
//   - missing: records with neither a result nor a dead letter.
//
//   - duplicate: results beyond the first for a record, plus results whose
//     source is no produced record. Several results for one key are not
//     duplicates when they answer different records (scenario 4 produces a
//     key many times and expects as many results).
//
//   - executed: keys the sandbox executed; executed twice: keys executed more
//     than once plus ledger movements (operation, refund, kind) booked more
//     than once. Idempotent replays are not executions.
//
//   - wrong: records whose results the scenario's Verdict refuses.
//
//   - in window (scenario 1): distinct keys the sandbox had executed when a
//     SIGKILL landed but whose result was not committed then — their result
//     sits at or past the results topic's end offset read right after the
//     kill (the dead process could commit nothing later). It proves kills
//     fell between the API's answer and the transaction commit.
//
//   - webhooks expected/published/duplicate: webhooks the sandbox delivered,
//     how many of their event ids (hex SHA-256 of the body) are on the
//     webhook-events topic, and records beyond one per event id.
//
//   - dl extra: dead letters beyond one per produced record.
//
//   - false wh (scenario 11; 0 elsewhere): records on the webhook-events
//     topic that are not the first of a webhook the sandbox sent, compared
//     by what they say (session, type, status, updated_at) rather than by
//     event id — a replayed, re-serialized or invented webhook published —
//     plus session states that name a project other than the session's.
//
//   - max sends, readyz 503, answered s (issue 13's scenarios only, "-"
//     elsewhere): the most API requests one key received (the counting
//     proxy), the /readyz polls that answered 503 naming a missing topic
//     while it was missing, and the seconds until every valid command had
//     its result (-1: some never did); scenario 11 reports in answered s
//     the longest a valid command waited for its result, and in bound s
//     the bound it must stay within.
//
//   - card leaks: full card numbers (leakscan: Luhn-valid digit runs not
//     masked as bin+asterisks+last4) in any record of the results, sessions,
//     webhook-events and dead-letter topics (key, value, headers) and in the
//     rig connector's log — the leak scan of issue 9 run after every
//     scenario, faults included.
//
// Pass: executed twice, missing, duplicate, wrong, card leaks, dl extra
// and false wh all 0, every delivered webhook published exactly once, and
// answered s within bound s where a scenario states one.
//
// # Scenarios
//
//   - 1 (crash_test.go): SIGKILL the connector ≥ 20 times over 10,000 payouts
//     (small: once over 200), in pairs: right after the sandbox's execution
//     count passes a seeded random threshold, then at a seeded random moment
//     0.2-3 s after the restarted connector is ready (joined its group).
//     The connector runs with the default 45 s session timeout and static
//     membership under a stable instance id (issue 18): a restart rejoins
//     its group at once, without waiting for the dead member to be dropped.
//     Every payout must be accepted once; in window > 0; the row reports the
//     failover per kill (kill to the first result committed after it,
//     restart included), which must stay within 10 s.
//   - 4 (duplicates_test.go): keys produced many times at once with the same
//     body, and keys produced at once with two bodies (amounts). Each key
//     executes once; a record whose body executed is accepted with the key's
//     session; a record with the other body is rejected with
//     idempotency_key_params_mismatch. The winner of a mixed key is a race,
//     read from the ledger.
//   - 3 (sandbox_faults_test.go): paysim's faults switched through POST
//     /admin/faults while payouts flow, one phase each: a 5xx burst (every
//     call fails until the pipeline parked the payouts in the retry topic
//     and paused fetching), a partial 5xx rate, 2 s latency spikes,
//     responses dropped after execution (drop_rate), webhook refusals
//     (retries driven by advancing the sandbox clock), then all of them
//     mixed at seeded steps. The retry budget outlasts every fault, so
//     every payout must be accepted once, every webhook delivered and
//     published once; the test fails if a fault was not hit (attempts per
//     payout, executions of 2 s, attempts above executions, refusals,
//     paysession_pipeline_retries_total > 0).
//   - 2 (broker_restart_test.go): SIGKILL the Kafka broker (a private
//     harness.StartTestBroker) and start it again on the same data directory
//     twice over 200 payouts (full: 6 times over 3,000), each once the
//     sandbox's execution count passes a seeded threshold, alternately when
//     the results topic holds an open transaction (high watermark above the
//     last stable offset) and while a batch's API calls are in flight. The
//     connector must ride it out (restarts 0); in window > 0 (keys executed
//     at a kill whose result was not committed then). Webhooks are wired
//     (FAULTS_BROKER_WEBHOOKS=0 unwires them); FAULTS_BROKER_DOWN=40s keeps
//     the broker down longer than the transaction timeout.
//   - 5 (rebalance_test.go): up to 3 connector processes (own instance and
//     client ids) on a 6-partition command topic while payouts are produced
//     at a steady rate (400 over 30 s; full: 3,000 over 150 s). At seeded
//     thresholds: scale 1 → 2 → 3, SIGTERM one, SIGKILL another, start both
//     again (full: three such cycles), each step awaiting a Stable group
//     with the new membership; webhooks go to replica-1 (those sent while
//     it is down are redelivered). Every replica must commit results (by the
//     producer id of its transactional id) and every step must change the
//     group's membership. The replicas' session timeout is the default 45 s
//     at full size, where the row reports the failover of each SIGKILLed
//     replica's partitions to the others (issue 18), and 6 s at the small
//     size, whose short flow must still have work for the killed replica
//     when it returns.
//   - 6 (topic_deleted_test.go, issue 13): the command-results topic is
//     deleted with kadm while payouts flow and recreated with the same
//     partitions, replication and configs 20 s later (both sizes: the
//     produce client retries an unknown topic for about 10 s before a
//     write fails; FAULTS_TOPIC_OUTAGE_SECONDS). Payouts of three phases:
//     answered before the deletion; produced just before it while the
//     counting proxy holds every API request until the topic is gone (so
//     none of their results can be committed to the deleted topic);
//     produced while the topic is missing. /readyz must answer 503 naming the topic
//     while it is missing and the log must name it; after the recreation
//     the connector recovers by itself (no restart, /readyz 200), every
//     payout is accepted once, none executed twice, and no key is sent to
//     the API more than 3 times (max sends). The outcome reader re-adds
//     the recreated topic (Outcomes.Reconsume): a client never adopts a
//     recreated topic's new id by itself.
//   - 7 (poison_test.go, issue 13): on every partition of the init_payout
//     topic (created with max.message.bytes=4194304; the dead-letter topic
//     keeps the broker's 1 MB), valid payouts interleaved with records the
//     connector must answer invalid: 2 MiB values, a bad amount, a
//     duplicate member ({"amount":100,"amount":999999,...}), a member
//     differing in case ("AMOUNT"), a raw 0xff byte in a JSON string, and
//     a card number as the key (plain and with separators). Every record
//     must get exactly one result (a dead letter alone is missing here)
//     and at most one dead letter, all within 2 minutes (full: 5),
//     nothing executed twice, no card leak.
//   - 8 (webhook_replay_test.go, issue 14): three connector processes share
//     the sessions, session-updates and webhook-events topics (3 partitions
//     each: every replica's session writer owns one), with the reconciler
//     auto-confirming payouts. The sandbox's webhooks go through a seeded
//     spray in the test that sends each delivery to a random live replica
//     and a third of them to a second replica too, replays random earlier
//     deliveries (validly signed) to random replicas every 50 ms, and at
//     the end replays every delivery once more in random order; meanwhile
//     replicas are SIGKILLed, SIGTERMed and restarted one at a time. 150
//     payouts over 15 s (full: 1,500 over 60 s), every third above the
//     confirmation threshold (ready_to_confirm, then payment_finished).
//     Pass: every payout accepted once; each session confirmed once; the
//     last record of every session on payments.sessions is the sandbox's
//     final state (stale states 0; and no session goes back on the topic);
//     webhook-events holds each delivered event id exactly once.
//   - 10 (flood_test.go, issue 38): one session's command flood beside valid
//     traffic. The sandbox answers every call after 20 ms (-latency); one
//     payout makes a session, 200 status_refresh commands for it are
//     produced at once (full: 2,000), then 20 payouts one every 100 ms
//     (full: 100). Every record must be accepted once; the flood's status
//     queries execute one at a time, one per command, in offset order on
//     each partition; and no payout waits while more than 32 of the
//     flood's results are committed (4 batches of MaxPerSession 8; the
//     test logs how long the payouts waited).
//   - 11 (hostile_test.go, issue 38): hostile traffic beside valid
//     traffic. The connector reads Avro commands through a registry and
//     serves a second project; the session-updates and sessions topics
//     take 12 KiB records at most; the sandbox answers after 20 ms and its
//     webhooks pass a front that posts every third one to the second
//     project's path first. While 30 payouts (full: 200) are produced one
//     every 100 ms: a status_refresh whose writer schema (a compatible
//     evolution registered under the topic's subject) carries an array
//     block count of 2^62, and one whose schema id is registered under
//     another subject only (both invalid with a dead letter); payouts with
//     metadata above codec.MaxMetadataBytes (invalid, naming metadata) and
//     just under it (accepted; every state of their sessions published
//     without metadata under paysession-withheld); 160 connections (full:
//     600) that send a well-formed false signature and trickle their body,
//     cut off after the 2 s body deadline (WEBHOOK_BODY_TIMEOUT) and
//     reconnecting (every genuine webhook answered 200); and
//     100 status_refresh commands of one session (full: 1,000). Once the
//     sandbox is idle and the 2 s dedupe window has passed, every delivered
//     webhook is posted again, re-serialized and signed, and one rewritten
//     for ps_999999. Pass: every record one result, every valid payout
//     answered within 10 s of its produce (two batch deadlines), false wh
//     0, every webhook the sandbox sent delivered.
//   - 12 (pause_test.go, issue 40): two connector processes; 90 payouts
//     (full: 1,500) in thirds: the first with webhook deliveries refused;
//     the second produced with their API calls held at the counting proxy
//     while `connector pause` (the binary) writes the control topic, then
//     released once both replicas' /readyz (200) names the pause; the last
//     produced while paused, replica 2 SIGKILLed and restarted (it must
//     come back paused), and the refused webhooks delivered (answered 200,
//     published) while paused. Pass: no payout of the last third sent
//     before `connector resume`, no command's API call later than the
//     bound after the pause (answered s: the last call's delay; bound s:
//     0.5 s + two batch deadlines), every payout accepted once after the
//     resume, nothing executed twice.
package faults
