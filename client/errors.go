package client

import (
	"errors"
	"fmt"
	"net/http"
)

// Categories an *Error matches with errors.Is, by HTTP status.
var (
	ErrNotFound     = errors.New("not found")               // 404
	ErrUnauthorized = errors.New("not authorized")          // 401, 403
	ErrConflict     = errors.New("conflict")                // 409, 412
	ErrUnavailable  = errors.New("temporarily unavailable") // 429, 502, 503
)

// Error is an answer other than 2xx (K2). Message is the API's own error
// text when the body held one.
type Error struct {
	Method, Path string
	Status       int
	Message      string
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("%s %s: %s (HTTP %d)", e.Method, e.Path, msg, e.Status)
}

// Is matches the error's category.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	case ErrConflict:
		return e.Status == http.StatusConflict || e.Status == http.StatusPreconditionFailed
	case ErrUnavailable:
		return e.Status == http.StatusTooManyRequests || e.Status == http.StatusBadGateway ||
			e.Status == http.StatusServiceUnavailable
	}
	return false
}

// StatusOf returns the HTTP status of an API error in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// MessageOf returns the API's message of an API error in err's chain, or
// err's own text.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return err.Error()
}
