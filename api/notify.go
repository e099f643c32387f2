package api

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/floehq/floe/notify"
)

// Notifier turns change notifications into runs (notify.Hub implements
// it): the webhook hands its calls to it, table views show the last one.
type Notifier interface {
	Webhook(ctx context.Context, table string, e notify.Event, now time.Time) (ignored bool, retry time.Duration, err error)
	LastEvent(table string) (notify.Seen, bool)
}

// notifyRequest is the optional body of POST /tables/{name}/notify.
type notifyRequest struct {
	// MetadataLocation is the metadata file the commit wrote (shown on
	// the status page; floe reads the table's current metadata anyway).
	MetadataLocation string `json:"metadataLocation"`
	// ID identifies the commit or the job that made it, for the logs.
	ID string `json:"id"`
}

// notifyAnswer is the answer of POST /tables/{name}/notify.
type notifyAnswer struct {
	Table string `json:"table"`
	// Status: accepted (a run starts once the table's notifications
	// settle), or ignored (the table is paused or disabled).
	Status string `json:"status"`
}

// handleNotify is the webhook of catalogs and jobs without AWS events:
// the table's source has a new commit. Calls within the debounce window
// start one run, so it is safe to repeat; each table takes at most
// notifications.webhookPerMinute calls a minute (429 with Retry-After).
func (s *Server) handleNotify(w http.ResponseWriter, r *http.Request) {
	if s.opts.Notifier == nil {
		writeJSON(w, http.StatusServiceUnavailable, apiError{Error: "notifications are not enabled on this server"})
		return
	}
	var req notifyRequest
	if r.ContentLength != 0 {
		if err := s.decodeBody(w, r, &req); err != nil {
			s.writeErr(w, err)
			return
		}
	}
	name := r.PathValue("name")
	e := notify.Event{Kind: notify.KindWebhook, ID: req.ID, MetadataLocation: req.MetadataLocation, Time: time.Now().UTC()}
	ignored, retry, err := s.opts.Notifier.Webhook(r.Context(), name, e, time.Now())
	switch {
	case errors.Is(err, notify.ErrRateLimited):
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retry.Seconds()))))
		writeJSON(w, http.StatusTooManyRequests, apiError{Error: s.scrub(err.Error(), nil)})
		return
	case err != nil:
		s.writeErr(w, err)
		return
	}
	status := "accepted"
	if ignored {
		status = "ignored"
	}
	writeJSON(w, http.StatusAccepted, notifyAnswer{Table: name, Status: status})
}

// lastEvent returns the table's last notification seen by this replica.
func (s *Server) lastEvent(table string) *notify.Seen {
	if s.opts.Notifier == nil {
		return nil
	}
	if e, ok := s.opts.Notifier.LastEvent(table); ok {
		return &e
	}
	return nil
}
