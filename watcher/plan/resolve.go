package plan

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// resolve finds the manifest entries of pool files the fold knows only
// from the checkpoint (files to rebuild because their deletes changed or
// their coalesced unit broke). It reads only data manifests whose
// sequence number range holds such a file's data sequence number; when
// that is more than half of the snapshot's data manifests not yet cached
// (a delete-heavy change), it returns a reason to run the full-state diff
// instead, which reads them all once.
func (j *job) resolve(ctx context.Context, lv *live, pool []candidate) (map[string]entry, string, error) {
	need := map[string]bool{}
	var seqs []int64
	for _, c := range pool {
		if c.f.df == nil {
			need[c.path] = true
			seqs = append(seqs, c.f.dataSeq)
		}
	}
	if len(need) == 0 {
		return nil, "", nil
	}
	if err := j.loadDataManifests(ctx, lv); err != nil {
		return foldFailedEntries(ctx, err)
	}
	slices.Sort(seqs)
	var cands []iceberg.ManifestFile
	uncached := 0
	for _, m := range lv.dataManifests {
		i := sort.Search(len(seqs), func(i int) bool { return seqs[i] >= m.MinSequenceNum() })
		if i == len(seqs) || seqs[i] > m.SequenceNum() {
			continue
		}
		cands = append(cands, m)
		if !j.p.cache.has(j.entriesKey(m)) {
			uncached++
		}
	}
	if uncached > 1 && uncached > len(lv.dataManifests)/2 {
		return nil, fmt.Sprintf("rebuilding %d checkpointed files would read %d of %d data manifests",
			len(need), uncached, len(lv.dataManifests)), nil
	}
	all, err := j.readAll(ctx, cands)
	if err != nil {
		return foldFailedEntries(ctx, err)
	}
	out := make(map[string]entry, len(need))
	for _, es := range all {
		for _, e := range es {
			if e.status != iceberg.EntryStatusDELETED && need[e.df.FilePath()] {
				out[e.df.FilePath()] = e
			}
		}
	}
	for path := range need {
		if _, ok := out[path]; !ok {
			return nil, fmt.Sprintf("checkpointed file %s is not in the data manifests of snapshot %d",
				path, j.snap.SnapshotID), nil
		}
	}
	return out, "", nil
}

// foldFailedEntries is foldFailed for resolve.
func foldFailedEntries(ctx context.Context, err error) (map[string]entry, string, error) {
	_, reason, err := foldFailed(ctx, err)
	return nil, reason, err
}

func tasksOf(t table.FileScanTask) []table.FileScanTask { return []table.FileScanTask{t} }
