package codec

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/sr"
)

// registeredUnder returns nil when schema id is registered under subject
// (any version not deleted), a *DecodeError naming the subject when it is
// not, or a *RegistryError when the registry cannot say. A command whose
// writer schema is not one of its own subject's is refused: the subject's
// compatibility rules are what make a writer schema safe to resolve against
// ours, and any id of the registry would otherwise do. Answers are kept
// (per id and subject), registry failures are not.
func (d *Decoder) registeredUnder(ctx context.Context, id int, subject string) error {
	key := usageKey{id: id, subject: subject}
	d.mu.Lock()
	e, ok := d.usages[key]
	d.mu.Unlock()
	if ok {
		if e != nil {
			return e
		}
		return nil
	}
	_, err, _ := d.fetching.Do(fmt.Sprintf("usage %d %s", id, subject), func() (any, error) {
		e, err := d.fetchUsage(ctx, id, subject)
		if err != nil {
			return nil, err
		}
		d.mu.Lock()
		d.usages[key] = e
		d.mu.Unlock()
		if e != nil {
			return nil, e
		}
		return nil, nil
	})
	return err
}

// fetchUsage asks the registry for the subjects and versions of id.
func (d *Decoder) fetchUsage(ctx context.Context, id int, subject string) (*DecodeError, error) {
	versions, err := d.registry.SchemaVersionsByID(ctx, id)
	if err != nil {
		var re *sr.ResponseError
		if errors.As(err, &re) && re.StatusCode == 404 {
			return notRegisteredUnder(id, subject), nil
		}
		return nil, &RegistryError{Op: fmt.Sprintf("list the subjects of schema %d", id), Err: err}
	}
	if slices.ContainsFunc(versions, func(v sr.SubjectVersion) bool { return v.Subject == subject }) {
		return nil, nil
	}
	return notRegisteredUnder(id, subject), nil
}

func notRegisteredUnder(id int, subject string) *DecodeError {
	return &DecodeError{Format: FormatConfluent, Reason: fmt.Sprintf("schema id %d is not registered under subject %s, the command topic's value subject", id, subject)}
}
