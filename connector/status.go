package connector

import (
	"encoding/json"
	"net/http"
	"runtime"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/connector/sessionwriter"
)

// Build names the running build in the status document.
type Build struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	GoVersion string `json:"go_version"`
}

// NewBuild returns the Build of version and revision, built with this Go.
func NewBuild(version, revision string) *Build {
	return &Build{Version: version, Revision: revision, GoVersion: runtime.Version()}
}

// Status is the document GET /status serves: what this replica's parts
// report of themselves now. A part that reports nothing is absent, never
// guessed.
type Status struct {
	// Instance is the replica's instance id (its group.instance.id).
	Instance string `json:"instance"`
	// Build is absent when the binary did not name it.
	Build         *Build                `json:"build,omitempty"`
	Pipeline      *pipeline.Status      `json:"pipeline,omitempty"`
	SessionWriter *sessionwriter.Status `json:"session_writer,omitempty"`
	// Paused is the operator's pause as /readyz details it; absent when
	// nothing is paused.
	Paused any `json:"paused,omitempty"`
}

// StatusSources are where the status document's parts come from; a nil
// source leaves its part out.
type StatusSources struct {
	Instance      string
	Build         *Build
	Pipeline      func() pipeline.Status
	SessionWriter func() sessionwriter.Status
	Paused        func() any
}

// Status assembles the document from the sources now.
func (s StatusSources) Status() Status {
	doc := Status{Instance: s.Instance, Build: s.Build}
	if s.Pipeline != nil {
		p := s.Pipeline()
		doc.Pipeline = &p
	}
	if s.SessionWriter != nil {
		w := s.SessionWriter()
		doc.SessionWriter = &w
	}
	if s.Paused != nil {
		doc.Paused = s.Paused()
	}
	return doc
}

// StatusHandler serves the document of src as JSON.
func StatusHandler(src func() Status) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(src())
	})
}
