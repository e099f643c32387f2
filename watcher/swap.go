package watcher

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// swapPlan is what a run takes out of Pinot.
type swapPlan struct {
	// retired maps a checkpointed file the run drops or rebuilds to the
	// segments Pinot holds for it now.
	retired map[string][]string
	// orphans are served segments of the table's prefix that neither the
	// checkpoint nor the plan accounts for (a dead run's uploads) and that
	// this run may remove: the ledger shows no newer run recorded them.
	orphans []string
	// left are orphan candidates a newer lease recorded: not this run's to
	// judge (reported, left for the lease holder's next run).
	left []string
}

// planSwap works out the segments the run retires: those of dropped and
// rebuilt files, and orphans. A segment some newer lease recorded in the
// ledger is never an orphan of this run (I4): a stale run cannot delete
// what a newer run uploaded.
func (r *runner) planSwap(ctx context.Context, t target) (swapPlan, error) {
	sw := swapPlan{retired: map[string][]string{}}
	for _, path := range t.plan.Drop {
		sw.retired[path] = t.old.Files[path].Segments
	}
	for _, u := range t.plan.Build {
		for _, f := range u.Files {
			if old, ok := t.old.Files[f.Path]; ok {
				sw.retired[f.Path] = old.Segments
			}
		}
	}
	candidates, err := r.orphanCandidates(ctx, t)
	if err != nil {
		return sw, err
	}
	if len(candidates) == 0 {
		return sw, nil
	}
	tokens, err := r.w.deps.Store.SegmentTokens(ctx, r.table.Name, candidates)
	if err != nil {
		return sw, fmt.Errorf("read segment ledger: %w", err)
	}
	mine := r.keeper.current().Token
	for _, name := range candidates {
		if tok, ok := tokens[name]; ok && tok > mine {
			sw.left = append(sw.left, name)
			continue
		}
		sw.orphans = append(sw.orphans, name)
	}
	if len(sw.left) > 0 {
		r.w.log.Warn("segments recorded by a newer lease left in place", slog.String(attrTable, r.table.Name),
			slog.Int64("token", mine), slog.Any("segments", sw.left))
	}
	return sw, nil
}

// orphanCandidates are the served segments of the table's prefix that no
// checkpoint entry lists and no unit of the plan builds: from the store's
// index when the run's map is partial (lazy), else from the reference
// counts of the run's map.
func (r *runner) orphanCandidates(ctx context.Context, t target) ([]string, error) {
	if r.lazy == nil {
		return orphanCandidates(t, r.segmentRefs(t.old.Files), plan.SegmentPrefix(r.table.Name)), nil
	}
	names := orphanCandidates(t, nil, plan.SegmentPrefix(r.table.Name))
	if len(names) == 0 {
		return nil, nil
	}
	out, err := r.lazy.fi.UnreferencedSegments(ctx, r.table.Name, names)
	if err != nil {
		return nil, fmt.Errorf("read checkpointed segments: %w", err)
	}
	return out, nil
}

// orphanCandidates are served segments of the table's prefix that no
// checkpointed file references (known counts the references of t.old's
// files) and no unit of the plan will produce. Its cost is the served
// list's, not a pass over the checkpoint.
func orphanCandidates(t target, known segmentRefs, prefix string) []string {
	var units []string
	for _, u := range t.plan.Build {
		units = append(units, u.Key+"_")
	}
	var out []string
	for name := range t.served {
		if known[name] > 0 || !strings.HasPrefix(name, prefix) || hasAnyPrefix(name, units) {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// fromSegments is the served segments a replace takes out: those of
// retired files whose replacement was built (a file that failed under
// continueOnFileError keeps its old segments) and the orphans.
func (sw swapPlan) fromSegments(served map[string]bool, failed map[string]bool) []string {
	set := map[string]bool{}
	for path, segs := range sw.retired {
		if failed[path] {
			continue
		}
		for _, s := range segs {
			if served[s] {
				set[s] = true
			}
		}
	}
	for _, s := range sw.orphans {
		set[s] = true
	}
	// A coalesced segment shared with a file that keeps its state stays.
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// keptSegments is every segment the new checkpoint still references.
func keptSegments(files map[string]checkpoint.FileState) map[string]bool {
	out := map[string]bool{}
	for _, fs := range files {
		for _, s := range fs.Segments {
			out[s] = true
		}
	}
	return out
}
