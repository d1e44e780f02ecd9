package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestGroupLanes(t *testing.T) {
	mk := func(key, session string, retry bool) *inbound {
		in := newInbound(&kgo.Record{Key: []byte(key)}, "capture", retry)
		in.cmd = &command{Kind: "capture", SessionID: session}
		return in
	}
	a1, b1, a2, n1, ar := mk("ka1", "ps_1", false), mk("kb1", "ps_2", false), mk("ka2", "ps_1", false),
		mk("kn1", "", false), mk("kar", "ps_1", true)
	parked := newParkedSet()
	parked.apply(nil, []laneKeyPair{{"s:ps_1", "kar"}, {"s:ps_2", "kbx"}})

	lanes := groupLanes([]*inbound{a1, b1, a2, n1, ar}, parked)
	got := map[string]string{}
	behind := map[string]bool{}
	for _, l := range lanes {
		var keys []string
		for _, in := range l.items {
			keys = append(keys, in.key)
		}
		got[l.key] = strings.Join(keys, ",")
		behind[l.key] = l.behind
	}
	want := map[string]string{"s:ps_1": "kar,ka1,ka2", "s:ps_2": "kb1", "k:kn1": "kn1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("lane %s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("lanes = %v", got)
	}
	// ps_1's only parked key is in this batch; ps_2 has one elsewhere.
	if behind["s:ps_1"] || !behind["s:ps_2"] || behind["k:kn1"] {
		t.Errorf("behind = %v", behind)
	}
}

func TestParkedSetApply(t *testing.T) {
	s := newParkedSet()
	s.apply(nil, []laneKeyPair{{"s:a", "k1"}, {"s:a", "k2"}})
	s.apply([]laneKeyPair{{"s:a", "k1"}}, nil)
	if s.len() != 1 || !s.hasOthers("s:a", nil) || s.hasOthers("s:a", map[string]bool{"k2": true}) {
		t.Fatalf("set = %v", s.m)
	}
	s.apply([]laneKeyPair{{"s:a", "k2"}}, nil)
	if s.len() != 0 {
		t.Fatalf("set = %v", s.m)
	}
}

func TestMergeByTime(t *testing.T) {
	t0 := time.Unix(100, 0)
	mk := func(key, topic string, off int64, at int) *inbound {
		return newInbound(&kgo.Record{Key: []byte(key), Topic: topic, Offset: off, Timestamp: t0.Add(time.Duration(at) * time.Second)}, "capture", false)
	}
	retry := newInbound(&kgo.Record{Key: []byte("r"), Topic: "retry", Timestamp: t0.Add(time.Hour)}, "capture", true)
	// Partition "cap" has a record with an older timestamp after a newer one:
	// offset order within the partition must win.
	items := []*inbound{mk("c1", "cap", 0, 1), mk("c2", "cap", 1, 5), mk("c3", "cap", 2, 2), mk("f1", "ref", 0, 3), retry}
	var got []string
	for _, in := range mergeByTime(items) {
		got = append(got, in.key)
	}
	if want := "r,c1,f1,c2,c3"; strings.Join(got, ",") != want {
		t.Fatalf("order = %v, want %s", got, want)
	}
}
