package faults_test

import (
	"context"
	"io"
	"net/http"
	"time"
)

// Readyz is one GET of the connector's /readyz: its status code and body
// (the failed checks by name, as JSON), or 0 and the error when the
// connector does not answer.
func (c *Connector) Readyz() (status int, body string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.OpsURL+"/readyz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return 0, err.Error()
	}
	return resp.StatusCode, string(b)
}
