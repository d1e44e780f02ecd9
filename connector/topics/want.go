package topics

// Role is what a topic is to the connector. It chooses which rules apply
// beyond the ones a Want states itself (see the package documentation).
type Role string

// The roles of the connector's topics.
const (
	// Command is a command topic, one per command kind: consumed, and
	// written by redrive.
	Command Role = "command"
	// Retry holds commands still retrying at a batch deadline; it carries
	// copies of command records.
	Retry Role = "retry"
	// Results is the command-results topic: one result per command.
	Results Role = "results"
	// Sessions is the sessions topic: latest state per session, compacted.
	Sessions Role = "sessions"
	// SessionUpdates holds candidate session states and verified webhooks,
	// read by the session writer only.
	SessionUpdates Role = "session-updates"
	// WebhookEvents holds verified webhooks.
	WebhookEvents Role = "webhook-events"
	// DeadLetter holds command records that could not be decoded or
	// validated; it carries copies of command records.
	DeadLetter Role = "dead-letter"
	// Attempts holds durable "attempting" markers written before a
	// command's first call.
	Attempts Role = "attempts"
	// Control holds operators' pause and resume records, one key per
	// command kind (connector/control).
	Control Role = "control"
	// Periodic holds periodic publications (wallet balances, FPS banks).
	Periodic Role = "periodic"
)

// carriesCommands reports whether records of this role are copies of
// command records, and so must fit what the command topics accept.
func (r Role) carriesCommands() bool { return r == Retry || r == DeadLetter }

// keepsForRedrive reports whether records of this role must survive long
// enough for an operator to act on them (redrive, resume).
func (r Role) keepsForRedrive() bool { return r == Retry || r == DeadLetter }

// Want is one topic the connector is configured to use and what it needs
// from it.
type Want struct {
	// Topic is the topic's name.
	Topic string
	// Role is what the topic is to the connector.
	Role Role
	// Compacted requires cleanup.policy to include compact; a topic
	// without it is a hard violation.
	Compacted bool
	// Write says the connector produces to the topic: its durability
	// settings (min.insync.replicas, unclean leader election) are checked.
	Write bool
	// Read says the connector consumes the topic.
	Read bool
	// PartitionsLike names a topic whose partition count this one must
	// have: the session writer reads partition p of one and writes
	// partition p of the other.
	PartitionsLike string
}
