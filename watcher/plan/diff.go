package plan

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/floehq/floe/checkpoint"
)

// candidate is a live data file the run must build.
type candidate struct {
	path string
	f    liveFile
	fp   string
}

// diff compares the live state with the checkpoint. Both planning paths
// end here, so they give the same plan for the same live state (P1). It
// returns a reason instead of a plan when a fold cannot find the manifest
// entries of the checkpointed files it must rebuild.
func (j *job) diff(ctx context.Context, lv *live, cp checkpoint.Checkpoint) (*Plan, string, error) {
	idx, err := newDeleteIndex(lv.deletes)
	if err != nil {
		return nil, "", fmt.Errorf("snapshot %d of table %s: %w", j.snap.SnapshotID, j.tableName, err)
	}
	out := j.newPlan()
	out.Keep = make(map[string]checkpoint.FileState, len(cp.Files))
	var pool []candidate
	broken := map[string]bool{} // coalesced units of the checkpoint that lost or changed a member
	lv.each(func(path string, f liveFile) {
		out.LiveFiles++
		fp := idx.fingerprint(path, f.partition, f.dataSeq)
		old, ok := cp.Files[path]
		if ok && old.DeleteFingerprint == fp {
			old.Partition, old.DataSeq = f.partition, f.dataSeq
			out.Keep[path] = old
			return
		}
		if ok {
			out.Replacing = true
			if old.Group != "" {
				broken[old.Group] = true
			}
		}
		pool = append(pool, candidate{path: path, f: f, fp: fp})
	})
	out.Drop = dropped(lv, cp)
	for _, path := range out.Drop {
		if g := cp.Files[path].Group; g != "" {
			broken[g] = true
		}
	}
	out.Replacing = out.Replacing || len(out.Drop) > 0
	pool = regroup(out.Keep, broken, pool, lv)
	files, reason, err := j.buildFiles(ctx, lv, idx, pool)
	if reason != "" || err != nil {
		return nil, reason, err
	}
	out.Build = j.p.coalesce(j.tableName, files)
	return out, "", nil
}

// dropped lists the checkpoint's files that are no longer live, sorted.
func dropped(lv *live, cp checkpoint.Checkpoint) []string {
	var out []string
	if lv.base != nil { // fold: the base is the checkpoint
		out = slices.Collect(maps.Keys(lv.gone))
	} else {
		for path := range cp.Files {
			if !lv.has(path) {
				out = append(out, path)
			}
		}
	}
	slices.Sort(out)
	return out
}

// regroup moves the unchanged members of broken coalesced units from keep
// to the pool: a unit whose member changed or went away is rebuilt from
// its remaining live members (P6).
func regroup(keep map[string]checkpoint.FileState, broken map[string]bool, pool []candidate, lv *live) []candidate {
	if len(broken) == 0 {
		return pool
	}
	for path, fs := range keep {
		if fs.Group == "" || !broken[fs.Group] {
			continue
		}
		f, ok := lv.files[path]
		if !ok {
			f = liveFile{partition: fs.Partition, dataSeq: fs.DataSeq, size: fs.SizeBytes}
		}
		pool = append(pool, candidate{path: path, f: f, fp: fs.DeleteFingerprint})
		delete(keep, path)
	}
	return pool
}

// buildFiles turns the pool into Files with their scan tasks. Files the
// fold knows only from the checkpoint are looked up in the snapshot's
// manifests first.
func (j *job) buildFiles(ctx context.Context, lv *live, idx *deleteIndex, pool []candidate) ([]File, string, error) {
	resolved, reason, err := j.resolve(ctx, lv, pool)
	if reason != "" || err != nil {
		return nil, reason, err
	}
	out := make([]File, 0, len(pool))
	for _, c := range pool {
		if c.f.df == nil {
			e := resolved[c.path]
			if e.partition != c.f.partition || e.seq != c.f.dataSeq {
				return nil, fmt.Sprintf("checkpoint has partition %q, data sequence number %d for file %s; "+
					"the snapshot has %q, %d", c.f.partition, c.f.dataSeq, c.path, e.partition, e.seq), nil
			}
			c.f.df = e.df
		}
		df := c.f.df
		out = append(out, File{
			Path: c.path, Tasks: tasksOf(idx.task(df, c.f.partition, c.f.dataSeq)), DeleteFingerprint: c.fp,
			Partition: c.f.partition, DataSeq: c.f.dataSeq, Rows: df.Count(), SizeBytes: df.FileSizeBytes(),
		})
	}
	return out, "", nil
}
