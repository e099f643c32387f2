package watcher

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// streamPlan is a replacement known before anything is built: the names
// every unit will give and the served segments they retire.
type streamPlan struct {
	// names are each unit's planned segment names, by unit key.
	names map[string][]string
	// from are the served segments the replacement retires, to the new
	// names Pinot does not serve yet (its To list), both sorted.
	from, to []string
	// delta is the checkpoint change the run commits when every unit gave
	// its planned names.
	delta checkpoint.CheckpointDelta
}

// replace runs a plan that takes something out of Pinot (a drop, a file
// rebuilt for new deletes, an overwrite, a schema rebuild, an orphan).
// It streams the replacement when its To list can be named before the
// first build (replaceStreamed), else builds it whole (replaceWhole).
func (r *runner) replace(ctx context.Context, t target, sw swapPlan) error {
	s, ok := r.planStream(t, sw)
	if stale := staleReplacements(t.lineage.Replacements, s); len(stale) > 0 {
		var err error
		if t, err = r.revertStale(ctx, t, stale); err != nil {
			return err
		}
		s, ok = r.planStream(t, sw)
	}
	if !ok {
		return r.replaceWhole(ctx, t, sw)
	}
	return r.replaceStreamed(ctx, t, sw, s)
}

// staleReplacements are the open replacements other than this run's swap
// (which it resumes). The run holds the table's lease, so every open
// replacement is a dead or fenced run's: none will ever be ended.
func staleReplacements(open []pinot.OpenReplacement, s streamPlan) []pinot.OpenReplacement {
	var out []pinot.OpenReplacement
	for _, o := range open {
		if !sameNames(o.From, s.from) || !sameNames(o.To, s.to) {
			out = append(out, o)
		}
	}
	return out
}

// revertAbandoned reverts, before an appending run uploads anything, every
// open replacement a dead or fenced run left: an append retires nothing,
// so none of them is its swap to resume, and left open one would keep its
// uploads on Pinot's servers, hidden from every query, until some later
// replacing run reverted it. The run holds the table's lease, so no live
// run owns any of them (I4); each revert passes the lease guard and
// follows a re-read of the checkpoint (revertStale), so a run that lost its
// lease reverts nothing.
func (r *runner) revertAbandoned(ctx context.Context, t target) (target, error) {
	if len(t.lineage.Replacements) == 0 {
		return t, nil
	}
	return r.revertStale(ctx, t, t.lineage.Replacements)
}

// revertStale reverts open replacements of dead runs that are not this
// run's swap (the table moved on since), after checking
// the run still builds on the stored checkpoint: Pinot removes their
// uploads and keeps their To names reserved, so the units take their next
// name generation. Starting over them instead would let Pinot revert them
// inside the start, hiding any name the new replacement shares (I9).
func (r *runner) revertStale(ctx context.Context, t target, stale []pinot.OpenReplacement) (target, error) {
	if err := r.recheckBase(ctx); err != nil {
		return t, err
	}
	hidden := maps.Clone(t.lineage.Hidden)
	if hidden == nil {
		hidden = map[string]bool{}
	}
	for _, o := range stale {
		r.w.log.Info("revert open replacement of a dead run", slog.String(attrTable, r.table.Name),
			slog.String("replacement", o.ID), slog.Int("to", len(o.To)))
		if err := r.w.deps.Uploader.RevertReplace(ctx, r.table.Name, o.ID); err != nil {
			return t, fmt.Errorf("push segments to Pinot: revert replacement %s: %w", o.ID, err)
		}
		r.forget(ctx, o.To) // Pinot removed them: nothing of them is left to judge
		for _, n := range o.To {
			hidden[n] = true
		}
		t.lineage.Replacements = slices.DeleteFunc(slices.Clone(t.lineage.Replacements),
			func(x pinot.OpenReplacement) bool { return x.ID == o.ID })
	}
	t.lineage.Hidden = hidden
	t.bases = r.unitBases(t.plan.Build, hidden)
	return t, nil
}

// planStream names the replacement before anything is built. It cannot
// stream a pure removal, a pure addition or a plan whose units reuse
// served names only (nothing for a To list).
func (r *runner) planStream(t target, sw swapPlan) (streamPlan, bool) {
	s := streamPlan{names: make(map[string][]string, len(t.plan.Build))}
	set := maps.Clone(t.plan.Refresh) // key bounds the plan looked up (kept files)
	if set == nil {
		set = map[string]checkpoint.FileState{}
	}
	max := r.maxRowsPerSegment()
	for _, u := range t.plan.Build {
		req := r.buildRequest(t, u)
		names := make([]string, plannedSegments(u, max))
		for i := range names {
			names[i] = req.SegmentName(i)
			if !t.served[names[i]] {
				s.to = append(s.to, names[i])
			}
		}
		s.names[u.Key] = names
		maps.Copy(set, builtUnit{unit: u, segments: names}.fileStates())
	}
	s.delta = checkpoint.CheckpointDelta{Header: r.header(t, nil), Set: set, Delete: t.plan.Drop}
	addRemaps(&s.delta, t.plan)
	s.from = withoutKept(sw.fromSegments(t.served, nil), t.old.Files, s.delta)
	slices.Sort(s.to)
	return s, len(s.from) > 0 && len(s.to) > 0
}

// replaceStreamed opens the replacement in Pinot before the first upload
// (or resumes the one a dead run of the same swap left open), builds the
// units through the work queue, every replica's builders uploading each
// unit as soon as it is built (its names are in the To list, so Pinot
// hides them), ends the replacement after the last, then commits. Local
// disk holds only the units being built. A unit that failed or gave other
// names than planned means the replacement cannot end as named: it is
// reverted and the run built whole under fresh names (fallBack).
func (r *runner) replaceStreamed(ctx context.Context, t target, sw swapPlan, s streamPlan) error {
	r.begin(0, len(unitFiles(t.plan.Build)), false)
	r.phase("swap")
	id, prior, err := r.openReplacement(ctx, t, s)
	if err != nil {
		return err
	}
	t.planned = make(map[string]int, len(s.names))
	for key, names := range s.names {
		t.planned[key] = len(names)
	}
	reused, todo, err := r.resumeUnits(ctx, t, s, id, prior)
	if err != nil {
		return err
	}
	r.phase("build")
	built, err := r.buildBatch(ctx, t, todo, true)
	if err != nil {
		return err // the replacement stays open: the next lease holder resumes it
	}
	out := built
	out.built = append(slices.Clone(built.built), reused...)
	slices.SortFunc(out.built, func(a, b builtUnit) int { return strings.Compare(a.unit.Key, b.unit.Key) })
	if why := s.mismatch(t.plan.Build, out); why != "" {
		return r.fallBack(ctx, t, sw, s, id, why)
	}
	r.account(built)
	for _, bu := range reused {
		r.countBuilt(bu) // in Pinot at the end like the others, built and pushed by the dead run
	}
	for _, bu := range out.built {
		maps.Copy(s.delta.Set, bu.fileStates()) // the rows each file gave
	}
	r.phase("swap")
	if err := r.recheckBase(ctx); err != nil {
		return err
	}
	r.run.SegmentsDeleted = len(s.from)
	if err := r.w.deps.Uploader.EndReplace(ctx, r.table.Name, id); err != nil {
		return fmt.Errorf("push segments to Pinot: end replacement %s: %w", id, err)
	}
	r.phase("commit")
	if err := r.commitDelta(ctx, s.delta); err != nil {
		return err
	}
	r.forget(ctx, s.from)
	return nil
}

// resumeUnits splits the plan's units into those a resumed replacement
// already holds (the dead run uploaded them completely and correctly,
// uploadedUnits), counted done at once, and those to build. A replacement
// the run opened itself (prior nil) holds nothing yet.
func (r *runner) resumeUnits(ctx context.Context, t target, s streamPlan, id string, prior map[string]int64) ([]builtUnit, []plan.Unit, error) {
	if prior == nil {
		r.w.log.Info("stream replacement", slog.String(attrTable, r.table.Name), slog.String("replacement", id),
			slog.Int("units", len(t.plan.Build)), slog.Int("from", len(s.from)), slog.Int("to", len(s.to)))
		return nil, t.plan.Build, nil
	}
	done, err := r.uploadedUnits(ctx, t, s, prior)
	if err != nil {
		return nil, nil, err
	}
	var reused []builtUnit
	var todo []plan.Unit
	for _, u := range t.plan.Build {
		bu, ok := done[u.Key]
		if !ok {
			todo = append(todo, u)
			continue
		}
		reused = append(reused, bu)
		r.fileDone(u, bu.rows)
	}
	r.w.log.Info("resume open replacement", slog.String(attrTable, r.table.Name), slog.String("replacement", id),
		slog.Int("from", len(s.from)), slog.Int("to", len(s.to)), slog.Int("units", len(t.plan.Build)),
		slog.Int("reused", len(reused)))
	return reused, todo, nil
}

// openReplacement records the To names in the ledger under the run's
// lease, then resumes the open replacement that is exactly this swap (a
// dead run's, same From and To: its uploads stay, and those that prove
// complete are not built again, uploadedUnits) or starts one, which takes
// over any overlapping open replacement (pinot.Uploader.StartReplace).
// prior, set only when it resumes, holds the ledger's tokens of the To
// names as the dead run left them, read before this run records its own.
func (r *runner) openReplacement(ctx context.Context, t target, s streamPlan) (id string, prior map[string]int64, err error) {
	if err := r.recheckBase(ctx); err != nil {
		return "", nil, err
	}
	for _, o := range t.lineage.Replacements {
		if sameNames(o.From, s.from) && sameNames(o.To, s.to) {
			id = o.ID
			break
		}
	}
	if id != "" {
		if prior, err = r.w.deps.Store.SegmentTokens(ctx, r.table.Name, s.to); err != nil {
			return "", nil, fmt.Errorf("read segment ledger: %w", err)
		}
		if prior == nil {
			prior = map[string]int64{}
		}
	}
	if err := r.w.deps.Store.RecordSegments(ctx, r.keeper.current(), s.to); err != nil {
		return "", nil, fmt.Errorf("record segments of %s: %w", r.table.Name, err)
	}
	if id != "" {
		return id, prior, nil
	}
	id, err = r.w.deps.Uploader.StartReplace(ctx, r.table.Name, s.from, s.to)
	if err != nil {
		return "", nil, fmt.Errorf("push segments to Pinot: start replacement: %w", err)
	}
	return id, nil, nil
}

// sameNames reports whether a and b hold the same names.
func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// mismatch says why the built units are not the planned replacement ("" when
// they are): a unit that failed (continueOnFileError), or one whose
// deletes emptied a planned segment or whose rows exceeded its files'
// record counts.
func (s streamPlan) mismatch(units []plan.Unit, out batchOutcome) string {
	for key := range out.failed {
		return "unit " + key + " failed"
	}
	if len(out.built) != len(units) {
		return fmt.Sprintf("%d of %d units built", len(out.built), len(units))
	}
	for _, bu := range out.built {
		if !slices.Equal(bu.segments, s.names[bu.unit.Key]) {
			return fmt.Sprintf("unit %s gave segments [%s], planned [%s]", bu.unit.Key,
				strings.Join(bu.segments, " "), strings.Join(s.names[bu.unit.Key], " "))
		}
	}
	return ""
}

// fallBack reverts the streamed replacement (Pinot removes its uploads;
// the retired segments stay served, so queries never saw a change) and
// builds the run whole. The reverted names stay reserved in Pinot, so the
// units take their next name generation.
func (r *runner) fallBack(ctx context.Context, t target, sw swapPlan, s streamPlan, id, why string) error {
	r.w.log.Warn("streamed replacement cannot end as planned; reverting it and building the run whole",
		slog.String(attrTable, r.table.Name), slog.String("replacement", id), slog.String("reason", why))
	r.run.Rows, r.run.Builders = 0, nil
	if err := r.w.deps.Uploader.RevertReplace(ctx, r.table.Name, id); err != nil {
		return fmt.Errorf("push segments to Pinot: revert replacement %s: %w", id, err)
	}
	r.forget(ctx, s.to) // Pinot removed them: nothing of them is left to judge
	hidden := maps.Clone(t.lineage.Hidden)
	if hidden == nil {
		hidden = map[string]bool{}
	}
	for _, name := range s.to {
		hidden[name] = true
	}
	t.bases, t.planned = r.unitBases(t.plan.Build, hidden), nil
	return r.replaceWhole(ctx, t, sw)
}
