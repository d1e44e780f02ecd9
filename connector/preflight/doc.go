// Package preflight checks, before a start, everything `connector run`
// needs from its surroundings: the variables (none unknown, all valid), the
// key files, the brokers with the configured security, the topics against
// the plan, the schema registry and the partner API. It reports every
// problem, one line each, and changes nothing; `connector check` prints
// them. It sits outside the data path and runs none of it.
package preflight
