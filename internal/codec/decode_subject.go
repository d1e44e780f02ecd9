package codec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
)

// RefusalTTL is how long a Decoder keeps a registry's "no": a schema id the
// registry does not know, or one not registered under a command topic's
// subject. Within it such records are refused without asking the registry
// again, so a stream of them costs one request per id, not one per record;
// after it the registry is asked again, so an id registered under the
// subject since (the same schema registered there keeps its id) decodes
// without a restart.
const RefusalTTL = time.Minute

// MaxRefusals bounds the refusals a Decoder keeps (the oldest go first):
// ids are the record's to choose, so what is kept of them must be bounded.
const MaxRefusals = 4096

// usageKey asks whether schema id is registered under subject; subject ""
// asks whether the registry knows id at all.
type usageKey struct {
	id      int
	subject string
}

// registeredUnder returns nil when schema id is registered under subject
// (any version not deleted), a *DecodeError naming the subject when it is
// not, or a *RegistryError when the registry cannot say. A command whose
// writer schema is not one of its own subject's is refused: the subject's
// compatibility rules are what make a writer schema safe to resolve against
// ours, and any id of the registry would otherwise do. A yes is kept (ids
// of the subjects read are few); a no is kept for RefusalTTL; registry
// failures are not kept.
func (d *Decoder) registeredUnder(ctx context.Context, id int, subject string) error {
	key := usageKey{id: id, subject: subject}
	d.mu.Lock()
	_, ok := d.usages[key]
	d.mu.Unlock()
	if ok {
		return nil
	}
	if e, ok := d.refusals.Get(key, d.now()); ok {
		return e
	}
	_, err, _ := d.fetching.Do(fmt.Sprintf("usage %d %s", id, subject), func() (any, error) {
		err := d.fetchUsage(ctx, id, subject)
		if err == nil {
			d.mu.Lock()
			d.usages[key] = struct{}{}
			d.mu.Unlock()
		}
		d.refuse(key, err)
		return nil, err
	})
	return err
}

// refuse keeps err as the answer to key for RefusalTTL when it is final (a
// *DecodeError); transient errors are asked again next time.
func (d *Decoder) refuse(key usageKey, err error) {
	var de *DecodeError
	if errors.As(err, &de) {
		d.refusals.GetOrAdd(key, d.now(), func() *DecodeError { return de })
	}
}

// fetchUsage asks the registry for the subjects and versions of id: nil
// when subject is one of them, a *DecodeError when not, a *RegistryError
// when the registry cannot say.
func (d *Decoder) fetchUsage(ctx context.Context, id int, subject string) error {
	versions, err := d.registry.SchemaVersionsByID(ctx, id)
	if err != nil {
		var re *sr.ResponseError
		if errors.As(err, &re) && re.StatusCode == 404 {
			return notRegisteredUnder(id, subject)
		}
		return &RegistryError{Op: fmt.Sprintf("list the subjects of schema %d", id), Err: err}
	}
	if slices.ContainsFunc(versions, func(v sr.SubjectVersion) bool { return v.Subject == subject }) {
		return nil
	}
	return notRegisteredUnder(id, subject)
}

func notRegisteredUnder(id int, subject string) *DecodeError {
	return &DecodeError{Format: FormatConfluent, Reason: fmt.Sprintf("schema id %d is not registered under subject %s, the command topic's value subject", id, subject)}
}
