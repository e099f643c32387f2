package checkpoint

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// IsUnavailable reports whether err says the store could not be reached or
// did not answer in time, rather than that it refused the request: the
// caller may retry the same call later (the API answers 503 with
// Retry-After). Not found, conflicts, fencing and bad arguments are never
// unavailability.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	for _, refusal := range []error{ErrNotFound, ErrConflict, ErrInvalid, ErrFenced, ErrLeaseHeld} {
		if errors.Is(err, refusal) {
			return false
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, ErrClosed),
		errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrPoolExhausted),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	case redis.IsLoadingError(err), redis.IsMasterDownError(err), redis.IsTryAgainError(err),
		redis.IsClusterDownError(err), redis.IsMaxClientsError(err), redis.IsReadOnlyError(err):
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr)
}
