// Package kafka holds the small pieces of Kafka client use that several
// parts of the connector share.
package kafka
