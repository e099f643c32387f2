package catalog

import (
	"context"
	"fmt"
	"time"

	"github.com/floehq/floe/internal/sleep"
)

// PropagationNote is what a validation says when access was denied while
// IAM changes may still be propagating.
const PropagationNote = "IAM changes can take a minute to propagate"

// DefaultPropagationWait bounds the retries of a freshly created role.
const DefaultPropagationWait = 90 * time.Second

// ValidateOptions tune ValidateWithRetry.
type ValidateOptions struct {
	// PropagationWait bounds how long a validation that fails with
	// AccessDenied is run again (0: once, no retry). Use it right after
	// creating or changing the role, when IAM may not have caught up.
	PropagationWait time.Duration
	// Sleep waits between attempts; nil waits on a timer that ctx cancels.
	Sleep func(ctx context.Context, d time.Duration) error
}

// ValidateWithRetry validates c and, while a step is denied access, runs
// the validation again after a growing pause (2s, 4s, 8s, then every 15s)
// until opts.PropagationWait is used up. A report that succeeded after a
// denial says so in its notes; one still denied says that IAM changes can
// take a minute to propagate.
func ValidateWithRetry(ctx context.Context, c Catalog, opts ValidateOptions) Report {
	wait := opts.Sleep
	if wait == nil {
		wait = sleep.For
	}
	rep := c.Validate(ctx)
	var waited time.Duration
	for delay := 2 * time.Second; denied(rep) && waited < opts.PropagationWait; delay = min(2*delay, 15*time.Second) {
		d := min(delay, opts.PropagationWait-waited)
		if err := wait(ctx, d); err != nil {
			break
		}
		waited += d
		rep = c.Validate(ctx)
		if !denied(rep) && rep.OK {
			rep.Notes = append(rep.Notes, fmt.Sprintf("access was denied at first and granted after %s: %s", waited, PropagationNote))
		}
	}
	if denied(rep) {
		note := PropagationNote + ": if the role or its policy was created or changed moments ago, validate again in a minute"
		if waited > 0 {
			note = fmt.Sprintf("still denied after retrying for %s; %s", waited, note)
		}
		rep.Notes = append(rep.Notes, note)
	}
	return rep
}

// denied reports whether a step failed for lack of a permission.
func denied(r Report) bool {
	for _, s := range r.Steps {
		if s.Status == StepFailed && s.denied {
			return true
		}
	}
	return false
}
