package config

import (
	"os"
	"time"
)

// HeartbeatInterval is the consumer-group heartbeat interval of the
// connector's Kafka clients (franz-go's default); KAFKA_SESSION_TIMEOUT
// must exceed it.
const HeartbeatInterval = 3 * time.Second

// InstanceID is the replica's id: PAYSESSION_KAFKA_INSTANCE_ID, else the
// host name.
func (c *Config) InstanceID() string {
	if c.Kafka.InstanceID != "" {
		return c.Kafka.InstanceID
	}
	h, _ := os.Hostname()
	return h
}
