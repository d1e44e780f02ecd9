package cluster

import "os"

// KafkaVersion is the Apache Kafka version of the cluster's image: the version of the broker jars
// in integration/kafka/pom.xml (a test keeps the two equal).
const KafkaVersion = "4.1.1"

// LocalImage is the image built on this machine by integration/harness/cluster/kafkaimage.
const LocalImage = "paysession-kafka:" + KafkaVersion

// ImageEnv names the variable that picks another image of the same configuration convention, e.g.
// apache/kafka:4.1.1 (the official image) on a machine that can pull it.
const ImageEnv = "CHAOS_KAFKA_IMAGE"

// OfficialImage is the official Apache Kafka image of KafkaVersion.
const OfficialImage = "apache/kafka:" + KafkaVersion

// Image returns the image the cluster runs: $CHAOS_KAFKA_IMAGE when set, else LocalImage.
func Image() string {
	if v := os.Getenv(ImageEnv); v != "" {
		return v
	}
	return LocalImage
}
