package watcher

import (
	"fmt"
	"log/slog"
	"maps"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// addRemaps adds the plan's remapped groups to a checkpoint delta: their
// old files leave the checkpoint and their new files take over the old
// segments (plan P11). Pinot is not asked anything: it serves those
// segments already, and the commit is fenced by the run's lease like every
// commit, so a remap is one atomic step that a killed run simply redoes.
func addRemaps(d *checkpoint.CheckpointDelta, p *plan.Plan) {
	if len(p.Remaps) == 0 {
		return
	}
	if d.Set == nil {
		d.Set = map[string]checkpoint.FileState{}
	}
	for _, g := range p.Remaps {
		d.Delete = append(d.Delete, g.Old...)
		maps.Copy(d.Set, g.Files)
	}
}

// noteRemaps writes to the run's log what the plan remapped, and why
// groups that replace snapshots rewrote are rebuilt instead.
func (r *runner) noteRemaps(p *plan.Plan) {
	if len(p.Remaps) > 0 {
		var old, files, segs int
		keys := make([]string, 0, len(p.Remaps))
		for _, g := range p.Remaps {
			old, files, segs = old+len(g.Old), files+len(g.Files), segs+len(g.Segments)
			keys = append(keys, g.Key)
		}
		r.w.log.Info(fmt.Sprintf("remap: %d files → %d files own %d segments", old, files, segs),
			slog.String(attrTable, r.table.Name), slog.String(attrRun, r.run.ID), slog.Any("groups", keys))
	}
	if p.RemapFallback != "" {
		r.w.log.Info("remap: rebuilding compacted files instead", slog.String(attrTable, r.table.Name),
			slog.String(attrRun, r.run.ID), slog.String("reason", p.RemapFallback))
	}
}
