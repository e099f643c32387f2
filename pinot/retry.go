package pinot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/floehq/floe/internal/egress"
	"github.com/floehq/floe/internal/sleep"
)

// RetryPolicy bounds the retries of one call to Pinot or the deep store:
// exponential backoff with full jitter (each wait is uniform in
// [0, min(MaxBackoff, InitialBackoff·2^n))), at most Attempts attempts, and
// no new attempt once MaxElapsed has passed since the first.
// floe's configuration file holds it as pinot.retry (hence the yaml tags).
type RetryPolicy struct {
	Attempts       int           `yaml:"attempts"`
	InitialBackoff time.Duration `yaml:"initialBackoff"`
	MaxBackoff     time.Duration `yaml:"maxBackoff"`
	MaxElapsed     time.Duration `yaml:"maxElapsed"`
}

// DefaultRetryPolicy is what NewController and NewS3DeepStore use.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{Attempts: 5, InitialBackoff: 500 * time.Millisecond, MaxBackoff: 15 * time.Second, MaxElapsed: 2 * time.Minute}
}

// backoff returns the wait before attempt n+1 (n ≥ 1 attempts made).
func (p RetryPolicy) backoff(n int) time.Duration {
	ceil := p.InitialBackoff
	for i := 1; i < n && ceil < p.MaxBackoff; i++ {
		ceil *= 2
	}
	if p.MaxBackoff > 0 && ceil > p.MaxBackoff {
		ceil = p.MaxBackoff
	}
	if ceil <= 0 {
		return 0
	}
	return rand.N(ceil)
}

// call is one retried operation.
type call struct {
	policy RetryPolicy
	// write, when set, is shown to the guard in ctx before every attempt.
	write *Write
	// retryConflict also retries HTTP 409 (a concurrent push of the same
	// segment).
	retryConflict bool
	// settle, when set, runs after a failed attempt that would be retried:
	// it reads the state the attempt may have changed and reports whether
	// the operation already took effect (done) or can never succeed (err).
	settle func(ctx context.Context) (done bool, err error)
}

// run calls attempt until it succeeds, fails for good, or the policy's
// bounds are reached; it returns the last error.
func (c call) run(ctx context.Context, attempt func(ctx context.Context) error) error {
	start := time.Now()
	attempts := max(c.policy.Attempts, 1)
	for n := 1; ; n++ {
		if c.write != nil {
			if err := CheckGuard(ctx, *c.write); err != nil {
				return err
			}
		}
		err := attempt(ctx)
		if err == nil || ctx.Err() != nil || !retryable(err, c.retryConflict) {
			return err
		}
		if c.settle != nil {
			done, serr := c.settle(ctx)
			if done {
				return nil
			}
			if serr != nil {
				return serr
			}
		}
		wait := c.policy.backoff(n)
		if n >= attempts || (c.policy.MaxElapsed > 0 && time.Since(start)+wait > c.policy.MaxElapsed) {
			return fmt.Errorf("%w (gave up after %d attempts)", err, n)
		}
		if sleep.For(ctx, wait) != nil {
			return err
		}
	}
}

// retryable reports whether err may pass on a new attempt: 5xx, 408, 429
// (and 409 when conflict is set), timeouts, refused, reset and cut
// connections. Other 4xx answers are final.
func retryable(err error, conflict bool) bool {
	var perm *permanentError
	if errors.As(err, &perm) {
		return false
	}
	// APIError and the AWS SDK's response errors carry the HTTP status.
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) {
		switch code := status.HTTPStatusCode(); {
		case code >= 500, code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
			return true
		case code == http.StatusConflict:
			return conflict
		}
		return false
	}
	// *url.Error satisfies net.Error whatever it wraps: look inside.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	if errors.Is(err, egress.ErrRefused) || errors.As(err, new(*egress.RedirectError)) {
		return false
	}
	var op *net.OpError
	return errors.Is(err, egress.ErrUnreachable) || errors.As(err, &op) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// permanentError marks an error no retry can fix (a missing local file, a
// request Pinot rejected for good although it answered 5xx).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }
