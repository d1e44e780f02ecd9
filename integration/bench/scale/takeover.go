package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"
)

// sample is what one takeover of a filled sessions partition by one
// connector build measured.
type sample struct {
	Binary string `json:"binary"`
	// TakeoverSeconds is the session writer's own time to take its
	// partition over (paysession_session_writer_takeover_seconds_sum of
	// Takeovers takeovers: 1 unless the group rebalanced).
	TakeoverSeconds float64 `json:"takeover_seconds"`
	Takeovers       float64 `json:"takeovers"`
	// WriterReadySeconds and ReadySeconds run from the process's start to
	// the first scrape that found the session-writer readiness check
	// passing, and to the first /readyz 200 (every check: the reconciler
	// too, when it runs).
	WriterReadySeconds float64 `json:"writer_ready_seconds"`
	ReadySeconds       float64 `json:"ready_seconds"`
	// RSSBytes and PeakRSSBytes are VmRSS and VmHWM at /readyz 200.
	RSSBytes     int64 `json:"rss_bytes"`
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// HeapInuseBytes is go_memstats_heap_inuse_bytes at /readyz 200,
	// garbage of the takeover included; LiveHeapBytes is
	// go_memstats_heap_alloc_bytes right after a forced GC
	// (/debug/pprof/heap?gc=1): what the process holds.
	HeapInuseBytes float64 `json:"heap_inuse_bytes"`
	LiveHeapBytes  float64 `json:"live_heap_bytes"`
	// Sessions is paysession_session_writer_sessions: the sessions whose
	// last version the writer holds.
	Sessions float64 `json:"sessions"`
}

// rig is what every takeover of a run shares.
type rig struct {
	cluster *cluster
	bins    []binary
	key     string // the partner key file
	api     string // a loopback URL as the API's: the connector calls it only for commands, and none comes
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// connectorVars is the configuration of a connector process of bin on the
// topics of topics: a fresh consumer group and transactional id prefix (so
// no group state of an earlier run is read), the ops port on a free
// loopback port with pprof (to force a GC before reading the live heap),
// no webhook endpoint.
func (r *rig) connectorVars(o options, bin binary, topics map[string]string) (map[string]string, error) {
	ops, err := freeAddr()
	if err != nil {
		return nil, err
	}
	id := "bench-scale-" + randomID() + "-" + bin.Label
	vars := maps.Clone(topics)
	maps.Copy(vars, map[string]string{
		"PAYSESSION_API_BASE_URL":                  r.api,
		"PAYSESSION_API_PROJECT":                   "scale",
		"PAYSESSION_API_PRIVATE_KEY_FILE":          r.key,
		"PAYSESSION_KAFKA_BROKERS":                 strings.Join(r.cluster.brokers, ","),
		"PAYSESSION_KAFKA_GROUP_ID":                id,
		"PAYSESSION_KAFKA_TRANSACTIONAL_ID_PREFIX": id,
		"PAYSESSION_KAFKA_INSTANCE_ID":             bin.Label,
		"PAYSESSION_METRICS_LISTEN_ADDR":           ops,
		"PAYSESSION_METRICS_PPROF":                 "true",
		"PAYSESSION_WEBHOOK_ENABLED":               "false",
		"PAYSESSION_LOG_LEVEL":                     o.logLevel,
		"PAYSESSION_LOG_FORMAT":                    "text",
		"PAYSESSION_SHUTDOWN_GRACE":                "10s",
	})
	if !o.reconciler {
		vars["PAYSESSION_RECONCILER_INTERVAL"] = "0"
	}
	maps.Copy(vars, bin.Env)
	return vars, nil
}

// takeover starts a connector of bin on the topics, waits until it is
// ready (its session writer took the sessions partition over), measures
// it and stops it.
func (r *rig) takeover(ctx context.Context, o options, bin binary, topics map[string]string) (sample, error) {
	s := sample{Binary: bin.Label}
	vars, err := r.connectorVars(o, bin, topics)
	if err != nil {
		return s, err
	}
	p, err := startProc(bin.Path, vars, o.logs)
	if err != nil {
		return s, err
	}
	ready, err := p.waitReady(ctx, o.readyTimeout)
	if err == nil {
		err = measureReady(ctx, p, &s)
	}
	s.WriterReadySeconds, s.ReadySeconds = ready.writer.Seconds(), ready.all.Seconds()
	if stopErr := p.stop(); err == nil && stopErr != nil {
		err = stopErr
	}
	if err != nil {
		return s, fmt.Errorf("%s: %w", bin.Label, err)
	}
	return s, nil
}

// measureReady fills s from a connector just ready: its memory at once,
// then its metrics, then its live heap after a forced GC.
func measureReady(ctx context.Context, p *proc, s *sample) error {
	var err error
	if s.RSSBytes, s.PeakRSSBytes, err = procMemory(p.cmd.Process.Pid); err != nil {
		return err
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	m, err := scrape(ctx, hc, p.ops)
	if err != nil {
		return err
	}
	s.HeapInuseBytes = m["go_memstats_heap_inuse_bytes"]
	if code := status(ctx, hc, p.ops+"/debug/pprof/heap?gc=1"); code != http.StatusOK {
		return fmt.Errorf("/debug/pprof/heap?gc=1: status %d", code)
	}
	if m, err = scrape(ctx, hc, p.ops); err != nil {
		return err
	}
	s.LiveHeapBytes = m["go_memstats_heap_alloc_bytes"]
	s.Sessions = m["paysession_session_writer_sessions"]
	s.TakeoverSeconds = m["paysession_session_writer_takeover_seconds_sum"]
	s.Takeovers = m["paysession_session_writer_takeover_seconds_count"]
	return nil
}
