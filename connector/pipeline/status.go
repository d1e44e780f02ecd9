package pipeline

// Status is the final status of one command, as published in its
// command-result record.
type Status string

// The command-result statuses (the Avro enum of the command-result schema).
const (
	// StatusAccepted: the service answered ok.
	StatusAccepted Status = "accepted"
	// StatusRejected: the service answered with a final error, or the command
	// was never delivered although the retry budget was spent.
	StatusRejected Status = "rejected"
	// StatusExpired: the record is older than the key-lifetime margin; it was
	// never sent.
	StatusExpired Status = "expired"
	// StatusInvalid: the record could not be decoded or validated; it was
	// never sent and went to the dead-letter topic.
	StatusInvalid Status = "invalid"
	// StatusIndeterminate: a request may have reached the service but no
	// final answer came within the retry budget. It is never guessed; the
	// command stays safe to replay with its key until the key expires.
	StatusIndeterminate Status = "indeterminate"
)
