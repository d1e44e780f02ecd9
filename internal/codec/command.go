package codec

// Command is a decoded command record of any kind. The concrete types are
// the pointers *InitPayout, *InitPayment, ... of this package; switch on them
// to call the API.
type Command interface {
	Record
	// Kind returns the command kind.
	Kind() CommandKind
	// SessionRef returns the session id the command acts on, or "" for
	// commands that create a session or name none. Commands with the same
	// SessionRef must run in offset order.
	SessionRef() string
	// Validate checks the command's fields; problems are *ValidationError
	// values joined with errors.Join, each naming the field path.
	Validate() error
	// Route returns the partner project and submerchant the command names
	// (empty: the configured defaults).
	Route() Route
}

// Route is where a command's request goes on the service side: the partner
// project whose key signs it (X-PARTNER-PROJECT) and the payer of the
// request (X-PARTNER-SUBMERCHANT). Empty members mean the connector's
// configured defaults.
type Route struct {
	Project     string
	Submerchant string
}

func routeOf(project, submerchant *string) Route {
	var r Route
	if project != nil {
		r.Project = *project
	}
	if submerchant != nil {
		r.Submerchant = *submerchant
	}
	return r
}
