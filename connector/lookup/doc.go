// Package lookup answers "what happened to command K" from the topics: it
// reads the command results, dead letters and retry records of K and the
// latest state of the session a result or retry record names, each topic
// up to the end offsets it had when the reading began, and returns them in
// time order, masked as they are on the topics. It also holds the bounded
// reading of topics (Read) that `connector tail` shares.
//
// It sits beside the data path, not on it: an operator's tool that reads
// what the connector wrote, with no consumer group and no commits.
package lookup
