// Package fields holds the two helpers every component configuration uses:
// defaults for zero values, and validation errors that name their field.
package fields

import (
	"errors"
	"fmt"
)

// Default sets *p to v when *p is the zero value.
func Default[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// Errors collects validation failures, each prefixed with the field it is
// about, so that one error names every bad field at once.
type Errors struct{ errs []error }

// Add records a failure of field: "field: " + the formatted problem.
func (e *Errors) Add(field, format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf("%s: "+format, append([]any{field}, args...)...))
}

// Err joins the failures; nil when there is none.
func (e *Errors) Err() error { return errors.Join(e.errs...) }

// List returns the failures in the order they were recorded.
func (e *Errors) List() []error { return e.errs }
