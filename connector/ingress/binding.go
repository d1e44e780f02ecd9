package ingress

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/paysession/paysession/internal/payapi"
)

// Sessions is the local lookup of the sessions the connector holds;
// *sessionwriter.Writer is one.
type Sessions interface {
	// SessionProject reports whether session id is held, and if so the
	// project its states name (nil: the default project).
	SessionProject(id string) (project *string, known bool)
}

// StatusAPI reads a session from the service (session/status);
// *payapi.Client is one.
type StatusAPI interface {
	Status(ctx context.Context, sessionID string, opts ...payapi.CallOption) (*payapi.Session, error)
}

// bind binds a verified webhook to a session of the connector's and
// returns the session's project, or the status and verdict of a webhook
// that publishes nothing.
//
// A webhook's body and signature name no project (one service key signs
// every project's webhooks), so neither the path it arrived at nor the
// signature proves whose session it is. It is published only for a session
// the connector holds — in this replica's session writer (Sessions), or
// confirmed earlier — or that session/status under the path's project
// finds (a session lives in one project and the service finds it only
// there), and it names that session's project, never the path's guess:
//
//   - a session held under another project than the path's: 200,
//     nothing published (verdict foreign_project); the service would
//     otherwise resend it for 30 minutes, and it will not bind better;
//   - a session session/status does not find (repository_record_not_found)
//     under the path's project: 200, nothing published (unknown_session);
//   - session/status failing, slower than CheckTimeout, or MaxChecks calls
//     in flight: 503 (the service resends it), Retry-After when overloaded.
func (in *Ingress) bind(ctx context.Context, wh *webhook, path *string) (project *string, code int, verdict string) {
	id := wh.Session.ID
	if in.cfg.Sessions != nil {
		if p, ok := in.cfg.Sessions.SessionProject(id); ok {
			return in.sameProject(ctx, wh, p, path)
		}
	}
	if p, ok := in.confirmed.Get(id, in.cfg.Now()); ok {
		return in.sameProject(ctx, wh, p, path)
	}
	return in.check(ctx, wh, path)
}

// sameProject binds a webhook that arrived at path's project to a session
// known to be of project p.
func (in *Ingress) sameProject(ctx context.Context, wh *webhook, p, path *string) (*string, int, string) {
	if in.projectID(p) == in.projectID(path) {
		return p, 0, ""
	}
	in.cfg.Logger.WarnContext(ctx, "webhook of another project's session dropped: its project's webhook URL points at another project's path",
		slog.String("session_id", wh.Session.ID), slog.String("type", wh.Type),
		slog.String("session_project", in.projectID(p)), slog.String("path_project", in.projectID(path)))
	return nil, http.StatusOK, verdictForeignProject
}

// projectID names a project: the default project's id for nil.
func (in *Ingress) projectID(p *string) string {
	if p == nil || *p == "" {
		return in.cfg.DefaultProject
	}
	return *p
}

// check asks the service for the webhook's session under path's project.
func (in *Ingress) check(ctx context.Context, wh *webhook, path *string) (*string, int, string) {
	select {
	case in.checks <- struct{}{}:
	default:
		return nil, http.StatusServiceUnavailable, verdictOverloaded
	}
	defer func() { <-in.checks }()
	cctx, cancel := context.WithTimeout(ctx, in.cfg.CheckTimeout)
	defer cancel()
	var opts []payapi.CallOption
	if path != nil {
		opts = append(opts, payapi.WithProject(*path))
	}
	id := wh.Session.ID
	s, err := in.cfg.API.Status(cctx, id, opts...)
	var ae *payapi.Error
	switch {
	case err == nil && s != nil && s.ID == id:
		in.confirmed.GetOrAdd(id, in.cfg.Now(), func() *string { return path })
		return path, 0, ""
	case errors.As(err, &ae) && ae.Code == payapi.CodeRecordNotFound:
		in.cfg.Logger.WarnContext(ctx, "webhook of a session its project does not have dropped",
			slog.String("session_id", id), slog.String("type", wh.Type), slog.String("path_project", in.projectID(path)))
		return nil, http.StatusOK, verdictUnknownSession
	default:
		in.cfg.Logger.WarnContext(ctx, "webhook session not confirmed, asking for redelivery", slog.String("session_id", id),
			slog.String("path_project", in.projectID(path)), slog.Any("error", err))
		return nil, http.StatusServiceUnavailable, verdictUnavailable
	}
}
