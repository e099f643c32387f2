package plan

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"golang.org/x/sync/errgroup"
)

// readParallelism bounds concurrent manifest reads of one plan.
const readParallelism = 8

// entry is a manifest entry as the planner keeps it: column statistics
// are never decoded (they are not needed to plan or to read a file).
type entry struct {
	status     iceberg.ManifestEntryStatus
	snapshotID int64
	seq        int64 // data sequence number
	partition  string
	df         iceberg.DataFile
}

// manifests returns the manifest list of snap, cached by its path.
func (j *job) manifests(ctx context.Context, snap table.Snapshot) ([]iceberg.ManifestFile, error) {
	key := "list:" + snap.ManifestList
	if snap.ManifestList != "" {
		if v, ok := j.p.cache.get(key); ok {
			return v.([]iceberg.ManifestFile), nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ms, err := snap.Manifests(j.fs)
	if err != nil {
		return nil, fmt.Errorf("read manifest list of snapshot %d: %w", snap.SnapshotID, err)
	}
	if snap.ManifestList != "" {
		size := int64(len(key)) + 64
		for _, m := range ms {
			size += 256 + int64(len(m.FilePath()))
		}
		j.p.cache.put(key, ms, size)
	}
	return ms, nil
}

// entries returns every entry of manifest m (ADDED, EXISTING and DELETED),
// cached by the manifest's path.
func (j *job) entries(ctx context.Context, m iceberg.ManifestFile) ([]entry, error) {
	key := "manifest:" + m.FilePath()
	if v, ok := j.p.cache.get(key); ok {
		return v.([]entry), nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var (
		out  []entry
		size = int64(len(key)) + 64
	)
	for e, err := range iceberg.EntriesWithProjection(j.fs, m, false, iceberg.ManifestEntryProjection{}) {
		if err != nil {
			return nil, fmt.Errorf("read manifest %s: %w", m.FilePath(), err)
		}
		df := e.DataFile()
		part, err := j.partitionKey(df)
		if err != nil {
			return nil, fmt.Errorf("read manifest %s: %w", m.FilePath(), err)
		}
		out = append(out, entry{status: e.Status(), snapshotID: e.SnapshotID(), seq: e.SequenceNum(), partition: part, df: df})
		size += entrySize(df, part)
	}
	j.p.cache.put(key, out, size)
	return out, nil
}

// entrySize estimates the memory a decoded entry holds.
func entrySize(df iceberg.DataFile, partition string) int64 {
	n := int64(384 + 2*len(df.FilePath()) + 2*len(partition))
	if ref := df.ReferencedDataFile(); ref != nil {
		n += int64(len(*ref))
	}
	return n + int64(8*len(df.SplitOffsets()))
}

// readAll reads the entries of every manifest of ms, in parallel.
func (j *job) readAll(ctx context.Context, ms []iceberg.ManifestFile) ([][]entry, error) {
	out := make([][]entry, len(ms))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(readParallelism)
	for i, m := range ms {
		g.Go(func() error {
			es, err := j.entries(gctx, m)
			out[i] = es
			return err
		})
	}
	return out, g.Wait()
}
