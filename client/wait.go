package client

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultPoll is how often WaitRun asks when WaitOptions.Every is zero.
const DefaultPoll = 500 * time.Millisecond

// historyScan is how many of the newest runs WaitRun looks through.
const historyScan = 50

// endedChecks is how many polls in a row must see the run neither running
// nor in the history before WaitRun concludes it ended without an entry.
// More than one: behind a load balancer a replica that does not run it
// may answer the status.
const endedChecks = 3

// WaitOptions tunes WaitRun.
type WaitOptions struct {
	Every    time.Duration // between polls
	OnStatus func(Status)  // hears each status read while the run runs
}

// WaitRun polls until the table's run id has ended and returns it as the
// history holds it. found is false when the run ended without a history
// entry: floe records a run only once it has work to do, so a run that
// found no new snapshot leaves none. Answers 429/502/503 are retried
// until ctx ends.
func (c *Client) WaitRun(ctx context.Context, name, id string, opts WaitOptions) (run Run, found bool, err error) {
	if opts.Every <= 0 {
		opts.Every = DefaultPoll
	}
	absent := 0
	for {
		run, state, err := c.runState(ctx, name, id, opts.OnStatus)
		switch {
		case errors.Is(err, ErrUnavailable):
		case err != nil:
			return Run{}, false, fmt.Errorf("wait for run %s: %w", id, err)
		case state == runEnded:
			return run, true, nil
		case state == runAbsent:
			if absent++; absent >= endedChecks {
				return Run{ID: id, Table: name}, false, nil
			}
		default:
			absent = 0
		}
		select {
		case <-ctx.Done():
			return Run{}, false, fmt.Errorf("wait for run %s of table %s: %w", id, name, context.Cause(ctx))
		case <-time.After(opts.Every):
		}
	}
}

type runState int

const (
	runGoing runState = iota
	runEnded
	runAbsent
)

// runState reads the status first, then the history: a run records its
// history entry before the status stops showing it, so a run no longer
// running is in the history read after, if it ever will be.
func (c *Client) runState(ctx context.Context, name, id string, onStatus func(Status)) (Run, runState, error) {
	st, err := c.Status(ctx, name)
	if err != nil {
		return Run{}, runGoing, err
	}
	if st.RunningRunID == id {
		if onStatus != nil {
			onStatus(st)
		}
		return Run{}, runGoing, nil
	}
	runs, err := c.Runs(ctx, name, historyScan)
	if err != nil {
		return Run{}, runGoing, err
	}
	for _, r := range runs {
		if r.ID != id {
			continue
		}
		if r.Status == RunRunning {
			return r, runGoing, nil
		}
		return r, runEnded, nil
	}
	return Run{}, runAbsent, nil
}
