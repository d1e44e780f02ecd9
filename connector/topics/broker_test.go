package topics

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// TestMain stops the broker harness.Kafka may have started for this binary.
func TestMain(m *testing.M) { harness.Main(m) }

// newClients returns a client of the test broker (harness.NewClient) whose
// metadata is at most 10ms old (kadm answers from the client's metadata
// cache, 5s by default), so that waits for topic changes end as soon as they
// hold, and an admin client over it. Topics are created with
// harness.TopicWith on the first.
func newClients(t *testing.T) (*kgo.Client, *kadm.Client) {
	t.Helper()
	cl := harness.NewClient(t, kgo.MetadataMinAge(10*time.Millisecond))
	return cl, kadm.NewClient(cl)
}

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// missingTopic returns the name of a topic that no test creates, made of t's
// name, what, and a random suffix.
func missingTopic(t *testing.T, what string) string {
	t.Helper()
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	return "test.topics." + unsafeChars.ReplaceAllString(t.Name(), "-") + "." + what + "." + hex.EncodeToString(suffix[:])
}
