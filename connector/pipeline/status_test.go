package pipeline

import (
	"context"
	"encoding/json"
	"testing"
)

// TestOwnedPartitions: Status lists the assigned partitions in order, with
// a lag once one was observed (never for a partition no longer owned), and
// forgets revoked ones.
func TestOwnedPartitions(t *testing.T) {
	var o ownedPartitions
	o.assign(context.Background(), nil, map[string][]int32{"commands": {2, 0}, "retry": {0}})
	o.setLags(map[topicPartition]int64{{"commands", 2}: 5, {"commands", 9}: 1})
	check := func(want string) {
		t.Helper()
		if got, _ := json.Marshal(o.list()); string(got) != want {
			t.Errorf("partitions:\n got %s\nwant %s", got, want)
		}
	}
	check(`[{"topic":"commands","partition":0},{"topic":"commands","partition":2,"lag":5},{"topic":"retry","partition":0}]`)
	o.revoke(map[string][]int32{"commands": {2}})
	check(`[{"topic":"commands","partition":0},{"topic":"retry","partition":0}]`)
}
