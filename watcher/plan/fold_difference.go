package plan

import (
	"context"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// differenceCost is how many files of the fold's live set one entry's
// decoding is worth: comparing a live file with the files live after a
// snapshot is a map lookup, decoding a manifest entry costs about as much
// as this many of them.
const differenceCost = 16

// foldByDifference folds snapshot s without reading the manifests that
// hold only its DELETED entries, as a compaction writes them (P15). When
// the data manifests s wrote list every data file live after s (their
// added and existing counts add up to s's total-data-files), the files s
// removed are the files live before s that none of those manifests lists.
// It reports false and changes nothing when that does not hold or would
// cost more than reading the entries, and when the difference cannot be
// trusted: its size is not s's deleted-data-files, s adds again a file
// live before it, or a removed checkpointed file lacks the data sequence
// number or partition its manifest entry would have given (the remap
// groups removed files by partition). The files it removed are recorded
// in lv.removedBy for the remap's history.
func (j *job) foldByDifference(ctx context.Context, lv *live, s table.Snapshot, h listHead) (bool, error) {
	own, ok := j.differenceManifests(lv, s, h)
	if !ok {
		return false, nil
	}
	after, added, err := j.liveAfter(ctx, own, s.SnapshotID)
	if err != nil {
		return false, err
	}
	for _, e := range added {
		if lv.has(e.df.FilePath()) {
			return false, nil
		}
	}
	counts, ok := summaryCounts(s)
	if !ok {
		return false, nil
	}
	removed, ok := j.removedBetween(lv, after, counts.deletedData)
	if !ok {
		return false, nil
	}
	for _, e := range added {
		path := e.df.FilePath()
		lv.files[path] = e.liveFile()
		delete(lv.gone, path)
	}
	if len(lv.gone) == 0 {
		lv.gone = make(map[string]bool, len(removed))
	}
	for _, f := range removed {
		if f.id < 0 { // folded in since the checkpoint
			delete(lv.files, f.path)
			if _, ok := lv.base[f.path]; !ok {
				continue
			}
		}
		lv.gone[f.path] = true
	}
	if lv.removedBy == nil {
		lv.removedBy = map[int64][]stepFile{}
	}
	lv.removedBy[s.SnapshotID] = removed
	return true, nil
}

// differenceManifests returns the data manifests s wrote that list files
// live after it, when they list them all and reading them is cheaper than
// reading s's manifests of DELETED entries (those not in the planner's
// cache), which a fold by difference leaves unread.
func (j *job) differenceManifests(lv *live, s table.Snapshot, h listHead) ([]iceberg.ManifestFile, bool) {
	total, ok := summaryInt(s, "total-data-files")
	if !ok || j.lazy != nil {
		return nil, false
	}
	var (
		own                []iceberg.ManifestFile
		live, saved, extra int64
	)
	for _, m := range h.ms {
		if m.SnapshotID() != s.SnapshotID || m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		added, existing, deleted := int64(m.AddedDataFiles()), int64(m.ExistingDataFiles()), int64(m.DeletedDataFiles())
		if added < 0 || existing < 0 || deleted < 0 {
			return nil, false
		}
		live += added + existing
		cached := j.p.cache.has(j.entriesKey(m))
		switch {
		case added == 0 && existing == 0:
			if !cached {
				saved += deleted
			}
			continue
		case added == 0 && deleted == 0 && !cached:
			extra += existing // a fold would not read it
		}
		own = append(own, m)
	}
	extra += int64(len(lv.base)+len(lv.files)) / differenceCost
	return own, live == total && saved > extra
}

// liveAfter reads the files manifests own list as live (ADDED and
// EXISTING), and the entries snapshot id added.
func (j *job) liveAfter(ctx context.Context, own []iceberg.ManifestFile, id int64) (map[string]struct{}, []entry, error) {
	var n int
	for _, m := range own {
		n += presize(m.AddedDataFiles(), m.ExistingDataFiles())
	}
	after := make(map[string]struct{}, n)
	var added []entry
	for _, m := range own {
		es, err := j.entries(ctx, m)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range es {
			if e.status == iceberg.EntryStatusDELETED {
				continue
			}
			after[e.df.FilePath()] = struct{}{}
			if e.status == iceberg.EntryStatusADDED && e.snapshotID == id {
				added = append(added, e)
			}
		}
	}
	return after, added, nil
}

// removedBetween returns the files live in lv that after does not hold,
// with their partitions, numbered -1 when a snapshot since the checkpoint
// added them (the history numbers them anew); false when they are not
// want files, or when a checkpointed one has no data sequence number
// (format 2 and later) or no partition in a table with a partitioned spec
// (an entry written before partitions were recorded would be linked
// under the wrong one).
func (j *job) removedBetween(lv *live, after map[string]struct{}, want int64) ([]stepFile, bool) {
	removed := make([]stepFile, 0, presize(int32(min(want, maxPresized))))
	needSeq, parted := j.meta.Version() >= 2, j.allPartitioned() || len(j.specs) > 1
	for path, fs := range lv.base {
		if _, ok := after[path]; ok || lv.gone[path] {
			continue
		}
		if _, ok := lv.files[path]; ok {
			continue // folded in again since the checkpoint: below
		}
		if (needSeq && fs.DataSeq < 1) || (parted && fs.Partition == "") || int64(len(removed)) == want {
			return nil, false // not recorded, or more files than the snapshot removed
		}
		removed = append(removed, stepFile{path: path, partition: fs.Partition})
	}
	for path, f := range lv.files {
		if _, ok := after[path]; !ok {
			removed = append(removed, stepFile{path: path, partition: f.partition, id: -1})
		}
	}
	return removed, int64(len(removed)) == want
}
