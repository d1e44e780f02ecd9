package outbound

import (
	"slices"

	"github.com/paysession/paysession/internal/codec"
)

// WithheldMetadata is the header.Withheld value of a session state or
// webhook event written without its operations' metadata: the one member
// of a session whose size a partner chooses (bounded at validation by
// codec.MaxMetadataBytes per command, but a session holds many operations).
const WithheldMetadata = "metadata"

// StateForms returns the forms of a session state: whole, then, when an
// operation has metadata, without any operation's metadata.
func StateForms(st *codec.SessionState) []Form {
	return metadataForms(st, st.Session, func(s codec.Session) codec.Record { l := *st; l.Session = s; return &l })
}

// EventForms returns the forms of a webhook event: whole, then, when an
// operation of its session has metadata, without any operation's metadata.
func EventForms(ev *codec.WebhookEvent) []Form {
	return metadataForms(ev, ev.Session, func(s codec.Session) codec.Record { l := *ev; l.Session = s; return &l })
}

// metadataForms returns whole, then, when its session s has metadata, the
// record that with makes of s without it.
func metadataForms(whole codec.Record, s codec.Session, with func(codec.Session) codec.Record) []Form {
	forms := []Form{{Value: whole}}
	if lean, ok := withoutMetadata(s); ok {
		forms = append(forms, Form{Value: with(lean), Withheld: WithheldMetadata})
	}
	return forms
}

// withoutMetadata returns s without its operations' metadata, and whether
// there was any; s itself is not changed.
func withoutMetadata(s codec.Session) (codec.Session, bool) {
	if !slices.ContainsFunc(s.Operations, func(o codec.Operation) bool { return o.Metadata != nil }) {
		return s, false
	}
	s.Operations = slices.Clone(s.Operations)
	for i := range s.Operations {
		s.Operations[i].Metadata = nil
	}
	return s, true
}
