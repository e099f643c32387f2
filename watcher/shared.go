package watcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// workEnvelope is what a work item carries for its unit.
type workEnvelope struct {
	Unit []byte `json:"unit"` // plan.EncodeUnit
	// Served are the unit's segments Pinot already served at plan time.
	Served            []string `json:"served,omitempty"`
	MaxRowsPerSegment int64    `json:"maxRowsPerSegment,omitempty"`
	SegmentBase       string   `json:"segmentBase,omitempty"`
	// Planned caps the segments the unit may upload (0: no cap): a unit of
	// a streamed replacement uploads only names its open To list holds.
	Planned int `json:"planned,omitempty"`
}

// resultWait is how long the lease holder waits for results per poll.
const resultWait = time.Second

// buildShared publishes units on the work queue and collects their
// results: every replica's builders build and upload them (W1 guards each
// upload), the lease holder only waits. Results of units not in the batch
// (a reclaimed unit done twice) are ignored.
func (r *runner) buildShared(ctx context.Context, t target, units []plan.Unit) (batchOutcome, error) {
	q := r.w.deps.Work
	items, byKey, err := r.workItems(t, units)
	if err != nil {
		return batchOutcome{}, err
	}
	if err := r.keeper.check("publish work"); err != nil {
		return batchOutcome{}, err
	}
	published, err := q.Publish(ctx, items)
	if err != nil {
		return batchOutcome{}, fmt.Errorf("publish work of %s: %w", r.table.Name, err)
	}
	out, err := r.collect(ctx, byKey)
	if err != nil {
		if cerr := q.Cancel(context.WithoutCancel(ctx), r.table.Name, r.run.ID, published); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return batchOutcome{}, err
	}
	return out, nil
}

// workItems encodes one item per unit under the run's lease.
func (r *runner) workItems(t target, units []plan.Unit) ([]checkpoint.WorkItem, map[string]plan.Unit, error) {
	lease := r.keeper.current()
	items := make([]checkpoint.WorkItem, 0, len(units))
	byKey := make(map[string]plan.Unit, len(units))
	for _, u := range units {
		enc, err := plan.EncodeUnit(u)
		if err != nil {
			return nil, nil, fmt.Errorf("encode unit %s: %w", u.Key, err)
		}
		raw, err := json.Marshal(workEnvelope{Unit: enc, Served: servedOf(u, t.served), MaxRowsPerSegment: r.maxRowsPerSegment(),
			SegmentBase: t.bases[u.Key], Planned: t.planned[u.Key]})
		if err != nil {
			return nil, nil, fmt.Errorf("encode work item %s: %w", u.Key, err)
		}
		items = append(items, checkpoint.WorkItem{
			Table: r.table.Name, RunID: r.run.ID, Owner: lease.Owner, Token: lease.Token, Key: u.Key,
			SnapshotID: t.plan.SnapshotID, MetadataLocation: t.src.MetadataLocation, Unit: raw,
		})
		byKey[u.Key] = u
	}
	return items, byKey, nil
}

// servedOf lists the served segments of unit u (a dead run's uploads).
func servedOf(u plan.Unit, served map[string]bool) []string {
	var out []string
	for name := range served {
		if strings.HasPrefix(name, u.Key+"_") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// collect waits for a result of every unit in byKey.
func (r *runner) collect(ctx context.Context, byKey map[string]plan.Unit) (batchOutcome, error) {
	out := batchOutcome{failed: map[string]error{}}
	pending := len(byKey)
	done := map[string]bool{}
	for pending > 0 {
		results, err := r.w.deps.Work.Results(ctx, r.table.Name, r.run.ID, resultWait)
		if err != nil {
			if cause := context.Cause(ctx); cause != nil {
				return out, cause
			}
			return out, fmt.Errorf("collect work results of %s: %w", r.table.Name, err)
		}
		for _, res := range results {
			u, ok := byKey[res.Key]
			if !ok || done[res.Key] {
				continue
			}
			done[res.Key] = true
			pending--
			r.builtBy(res.Builder)
			r.fileDone(u, res.Rows)
			if res.Error != "" {
				if err := r.unitFailed(ctx, &out, u, errors.New(res.Error)); err != nil {
					return out, err
				}
				continue
			}
			out.built = append(out.built, builtUnit{unit: u, segments: res.Segments, rows: res.Rows, fileRows: res.FileRows})
		}
	}
	slices.SortFunc(out.built, func(a, b builtUnit) int { return strings.Compare(a.unit.Key, b.unit.Key) })
	return out, nil
}
