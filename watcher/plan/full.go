package plan

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
)

// full reads the live state of the snapshot from every one of its
// manifests (the full-state diff): the delete manifests first, which fix
// the key fields whose bounds the data manifests are read with.
// Manifests read before, by any plan of this Planner, come from the
// cache.
func (j *job) full(ctx context.Context) (*live, error) {
	ms, err := j.manifests(ctx, *j.snap)
	if err != nil {
		return nil, err
	}
	lv := &live{files: map[string]liveFile{}}
	if err := j.readDeletes(ctx, lv, ms); err != nil {
		return nil, fmt.Errorf("snapshot %d: %w", j.snap.SnapshotID, err)
	}
	all, err := j.readAll(ctx, lv.dataManifests)
	if err != nil {
		return nil, err
	}
	for i, m := range lv.dataManifests {
		for _, e := range all[i] {
			if e.status == iceberg.EntryStatusDELETED {
				continue
			}
			if err := lv.addEntry(m, e); err != nil {
				return nil, fmt.Errorf("snapshot %d: %w", j.snap.SnapshotID, err)
			}
		}
	}
	return lv, nil
}

// addEntry adds a live entry of manifest m.
func (lv *live) addEntry(m iceberg.ManifestFile, e entry) error {
	if m.ManifestContent() == iceberg.ManifestContentData {
		if e.df.ContentType() != iceberg.EntryContentData {
			return fmt.Errorf("data manifest %s holds delete file %s", m.FilePath(), e.df.FilePath())
		}
		lv.files[e.df.FilePath()] = e.liveFile()
		return nil
	}
	if e.df.Count() == 0 {
		return nil // deletes nothing (iceberg-go's planning skips it too)
	}
	d, err := newLiveDelete(e)
	if err != nil {
		return fmt.Errorf("manifest %s: %w", m.FilePath(), err)
	}
	lv.deletes = append(lv.deletes, d)
	return nil
}
