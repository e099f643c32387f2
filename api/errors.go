package api

import (
	"errors"
	"net"
	"net/http"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/redact"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/watcher"
)

// Error categories of the API itself.
var (
	errBadRequest = errors.New("bad request")
	errInUse      = errors.New("in use")
	errNoCatalogs = errors.New("catalog access not configured")
	// errBodyTimeout: the request body did not arrive within readTimeout.
	errBodyTimeout = errors.New("request body not received in time")
	// errPinot: a Pinot call the API made failed (502).
	errPinot = errors.New("pinot")
)

// apiError is the JSON error body.
type apiError struct {
	Error string `json:"error"`
}

// writeErr answers err with its status; the message has every known
// secret scrubbed (I7). A 503 says when to retry.
func (s *Server) writeErr(w http.ResponseWriter, err error) {
	s.writeScrubbed(w, err, nil)
}

// writeScrubbed is writeErr that also scrubs the given values (the
// secrets of a connection the redactor does not know yet).
func (s *Server) writeScrubbed(w http.ResponseWriter, err error, secrets map[string]string) {
	status := errStatus(err)
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	if status == http.StatusRequestTimeout {
		w.Header().Set("Connection", "close")
	}
	writeJSON(w, status, apiError{Error: s.scrub(err.Error(), secrets)})
}

// scrub removes every known secret and the given values (with their
// derived forms, by the redactor's rules) from msg.
func (s *Server) scrub(msg string, secrets map[string]string) string {
	if len(secrets) > 0 {
		vals := make([]string, 0, len(secrets))
		for _, v := range secrets {
			vals = append(vals, v)
		}
		msg = redact.Scrub(msg, vals...)
	}
	return s.red.Scrub(msg)
}

// errStatus maps store, watcher, schema and catalog errors to HTTP
// statuses. What a client can cause is a 4xx; a catalog or other peer
// failing is 502; a store that cannot be reached is 503. Only floe's own
// faults are 500.
func errStatus(err error) int {
	var unavailable *unavailableError
	var tooBig *http.MaxBytesError
	var catErr *catalog.Error
	switch {
	case errors.As(err, &unavailable), errors.Is(err, errNoCatalogs), errors.Is(err, watcher.ErrDraining):
		return http.StatusServiceUnavailable
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errBodyTimeout):
		return http.StatusRequestTimeout
	case errors.Is(err, errBadRequest), errors.Is(err, catalog.ErrInvalidConfig),
		errors.Is(err, schema.ErrIllegalOverride), errors.Is(err, schema.ErrInvalidName),
		errors.Is(err, schema.ErrUnsupportedType), errors.Is(err, watcher.ErrBadSchedule),
		errors.Is(err, checkpoint.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, catalog.ErrBadCatalog):
		return http.StatusUnprocessableEntity
	case errors.Is(err, errPrecondition):
		return http.StatusPreconditionFailed
	case errors.Is(err, checkpoint.ErrNotFound), errors.Is(err, catalog.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, checkpoint.ErrConflict), errors.Is(err, checkpoint.ErrStale), errors.Is(err, watcher.ErrRunning),
		errors.Is(err, errInUse), errors.Is(err, checkpoint.ErrInUse), errors.Is(err, checkpoint.ErrNoConnection):
		return http.StatusConflict
	case errors.Is(err, catalog.ErrAccessDenied), errors.Is(err, catalog.ErrBadCredentials),
		errors.Is(err, catalog.ErrUnreachable), errors.Is(err, catalog.ErrTimeout),
		errors.Is(err, catalog.ErrBadMetadata), errors.Is(err, catalog.ErrWrongRegion),
		errors.As(err, &catErr), errors.Is(err, errPinot):
		return http.StatusBadGateway
	}
	return http.StatusInternalServerError
}

// isUnavailable reports whether err is a store call that could not reach
// the store.
func isUnavailable(err error) bool {
	var u *unavailableError
	return errors.As(err, &u)
}

// bodyErr classifies a failed body read: too large, too slow, or bad.
func bodyErr(err error) error {
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return err
	case errors.As(err, &netErr) && netErr.Timeout():
		return errBodyTimeout
	}
	return nil
}
