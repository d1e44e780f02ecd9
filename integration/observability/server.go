package observability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"
)

// ServerConfig describes one Prometheus run.
type ServerConfig struct {
	Binaries Binaries
	// Dir holds the configuration, the TSDB and prometheus.log (required).
	Dir string
	// Targets are host:port addresses whose /metrics are scraped as one job.
	Targets []string
	// Job is the job label of the targets (default paysession).
	Job string
	// Labels are added to every scraped series, e.g. namespace.
	Labels map[string]string
	// RuleFiles are Prometheus rule files to load.
	RuleFiles []string
	// Interval is the scrape and rule evaluation interval (default 1s).
	Interval time.Duration
}

// Validate names every missing field.
func (c ServerConfig) Validate() error {
	var errs []error
	if c.Binaries.Prometheus == "" {
		errs = append(errs, errors.New("Binaries.Prometheus is required"))
	}
	if c.Dir == "" {
		errs = append(errs, errors.New("Dir is required"))
	}
	if len(c.Targets) == 0 {
		errs = append(errs, errors.New("Targets is required"))
	}
	return errors.Join(errs...)
}

// Server is a running Prometheus on a loopback port.
type Server struct {
	cmd  *exec.Cmd
	done chan struct{}
	url  string
	log  string
}

// Start writes the configuration, starts Prometheus in its own process group
// and waits until it answers /-/ready.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Job == "" {
		cfg.Job = "paysession"
	}
	if cfg.Interval == 0 {
		cfg.Interval = time.Second
	}
	conf, err := configYAML(cfg)
	if err != nil {
		return nil, err
	}
	confPath := filepath.Join(cfg.Dir, "prometheus.yml")
	if err := os.WriteFile(confPath, conf, 0o644); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &Server{url: "http://" + addr, log: filepath.Join(cfg.Dir, "prometheus.log"), done: make(chan struct{})}
	logf, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	s.cmd = exec.Command(cfg.Binaries.Prometheus, "--config.file="+confPath,
		"--storage.tsdb.path="+filepath.Join(cfg.Dir, "data"), "--web.listen-address="+addr,
		"--storage.tsdb.retention.time=1h", "--log.level=warn")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start prometheus: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, fmt.Errorf("prometheus: %w\n--- %s ---\n%s", err, s.log, s.Log())
	}
	return s, nil
}

func configYAML(cfg ServerConfig) ([]byte, error) {
	interval := cfg.Interval.String()
	return yaml.Marshal(map[string]any{
		"global": map[string]any{"scrape_interval": interval, "evaluation_interval": interval,
			"scrape_timeout": interval},
		"rule_files": cfg.RuleFiles,
		"scrape_configs": []any{map[string]any{
			"job_name":       cfg.Job,
			"static_configs": []any{map[string]any{"targets": cfg.Targets, "labels": cfg.Labels}},
		}},
	})
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if resp, err := http.Get(s.url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return errors.New("exited before it was ready")
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// URL is the base URL of the Prometheus HTTP API.
func (s *Server) URL() string { return s.url }

// Log returns the last lines of Prometheus' own log.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	return tail(b)
}

// Stop ends Prometheus and its process group and waits for it.
func (s *Server) Stop() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// Sample is one series of an instant query's answer.
type Sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// Query evaluates expr at the current time and returns its series. A
// scalar or string answer is one sample without labels.
func (s *Server) Query(ctx context.Context, expr string) ([]Sample, error) {
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := s.get(ctx, "/api/v1/query?query="+url.QueryEscape(expr), &data); err != nil {
		return nil, fmt.Errorf("query %s: %w", expr, err)
	}
	switch data.ResultType {
	case "vector", "matrix":
		var out []Sample
		return out, json.Unmarshal(data.Result, &out)
	default:
		var v [2]any
		if err := json.Unmarshal(data.Result, &v); err != nil {
			return nil, err
		}
		return []Sample{{Value: v}}, nil
	}
}

// Alert is one alert of /api/v1/alerts.
type Alert struct {
	Labels map[string]string `json:"labels"`
	State  string            `json:"state"`
	Value  string            `json:"value"`
}

// Alerts returns the pending and firing alerts.
func (s *Server) Alerts(ctx context.Context) ([]Alert, error) {
	var data struct {
		Alerts []Alert `json:"alerts"`
	}
	return data.Alerts, s.get(ctx, "/api/v1/alerts", &data)
}

// RuleHealth is the evaluation state of one loaded rule.
type RuleHealth struct {
	Name      string `json:"name"`
	Query     string `json:"query"`
	Health    string `json:"health"`
	LastError string `json:"lastError"`
	Type      string `json:"type"`
}

// Rules returns every loaded rule with its last evaluation's health.
func (s *Server) Rules(ctx context.Context) ([]RuleHealth, error) {
	var data struct {
		Groups []struct {
			Rules []RuleHealth `json:"rules"`
		} `json:"groups"`
	}
	if err := s.get(ctx, "/api/v1/rules", &data); err != nil {
		return nil, err
	}
	var out []RuleHealth
	for _, g := range data.Groups {
		out = append(out, g.Rules...)
	}
	return out, nil
}

// TargetsUp reports whether every scrape target's last scrape succeeded.
func (s *Server) TargetsUp(ctx context.Context) (bool, error) {
	var data struct {
		ActiveTargets []struct {
			Health    string `json:"health"`
			LastError string `json:"lastError"`
		} `json:"activeTargets"`
	}
	if err := s.get(ctx, "/api/v1/targets", &data); err != nil {
		return false, err
	}
	for _, t := range data.ActiveTargets {
		if t.Health != "up" {
			return false, nil
		}
	}
	return len(data.ActiveTargets) > 0, nil
}

// get decodes the data member of an API answer into v.
func (s *Server) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("%s: %d %s", path, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	if env.Status != "success" {
		return fmt.Errorf("%s", env.Error)
	}
	return json.Unmarshal(env.Data, v)
}
