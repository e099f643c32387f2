package plan

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"golang.org/x/sync/errgroup"

	"github.com/floehq/floe/checkpoint"
)

// readParallelism bounds concurrent manifest reads of one plan.
const readParallelism = 8

// entry is a manifest entry as the planner keeps it. Column statistics
// are not kept (they are not needed to plan or to read a file), except
// the file_path bounds of a position delete file.
type entry struct {
	status     iceberg.ManifestEntryStatus
	snapshotID int64
	seq        int64 // data sequence number
	partition  string
	df         iceberg.DataFile
	paths      pathBounds
	bounds     checkpoint.KeyBounds // a data file's bounds of the key fields
}

// liveFile is what the planner keeps of a live data file's entry.
func (e entry) liveFile() liveFile {
	return liveFile{partition: e.partition, dataSeq: e.seq, size: e.df.FileSizeBytes(), df: e.df, bounds: e.bounds}
}

// pathBounds are the lower and upper bounds of a position delete file's
// file_path column, when its manifest records them.
type pathBounds struct {
	lower, upper       string
	hasLower, hasUpper bool
}

// filePathFieldID is the reserved field id of file_path in position
// delete files (Iceberg spec).
const filePathFieldID = 2147483546

// mayHold reports whether a delete file with these bounds can hold
// positions of the data file at path (bounds may be truncated prefixes,
// which still bound the value).
func (b pathBounds) mayHold(path string) bool {
	return (!b.hasLower || b.lower <= path) && (!b.hasUpper || path <= b.upper)
}

// newEntry keeps what the planner needs of a manifest entry; delete
// manifests are read with statistics, which only position delete files'
// file_path bounds survive, and so are data manifests when the table has
// key fields, of which only those fields' bounds survive.
func newEntry(e iceberg.ManifestEntry, partition string, keyIDs []int) entry {
	df := e.DataFile()
	out := entry{status: e.Status(), snapshotID: e.SnapshotID(), seq: e.SequenceNum(), partition: partition, df: df}
	if df.ContentType() == iceberg.EntryContentData && len(keyIDs) > 0 {
		out.bounds = keyBoundsOf(df, keyIDs)
		out.df = iceberg.DataFileWithoutColumnStats(df)
	}
	if df.ContentType() == iceberg.EntryContentPosDeletes {
		if v, ok := df.LowerBoundValues()[filePathFieldID]; ok {
			out.paths.lower, out.paths.hasLower = string(v), true
		}
		if v, ok := df.UpperBoundValues()[filePathFieldID]; ok {
			out.paths.upper, out.paths.hasUpper = string(v), true
		}
	}
	if df.ContentType() != iceberg.EntryContentData {
		out.df = iceberg.DataFileWithoutColumnStats(df)
	}
	return out
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
		j.p.cache.put(key, ms, listSize(key, ms))
	}
	return ms, nil
}

// entries returns every entry of manifest m (ADDED, EXISTING and DELETED),
// cached by the manifest's path.
func (j *job) entries(ctx context.Context, m iceberg.ManifestFile) ([]entry, error) {
	key := j.entriesKey(m)
	if v, ok := j.p.cache.get(key); ok {
		return v.([]entry), nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var (
		out  = make([]entry, 0, entryCount(m))
		size = int64(len(key)) + 64
	)
	proj := iceberg.ManifestEntryProjection{IncludePruningStats: m.ManifestContent() == iceberg.ManifestContentDeletes ||
		len(j.keyIDs) > 0}
	for e, err := range iceberg.EntriesWithProjection(j.fs, m, false, proj) {
		if err != nil {
			return nil, fmt.Errorf("read manifest %s: %w", m.FilePath(), err)
		}
		df := e.DataFile()
		part, err := j.partitionKey(df)
		if err != nil {
			return nil, fmt.Errorf("read manifest %s: %w", m.FilePath(), err)
		}
		en := newEntry(e, part, j.keyIDs)
		out = append(out, en)
		size += entrySize(df, part) + int64(len(en.paths.lower)+len(en.paths.upper)) + keyBoundsSize(en.bounds)
	}
	j.p.cache.put(key, out, size)
	return out, nil
}

// entryCount is the number of entries the manifest list records for m
// (0 when it records none, as v1 lists may not), to size the slice they
// are read into; at most maxPresized, so that a count the manifest does
// not hold costs no more than that.
func entryCount(m iceberg.ManifestFile) int {
	return presize(m.AddedDataFiles(), m.ExistingDataFiles(), m.DeletedDataFiles())
}

// presize is the sum of counts a manifest list records (a missing one,
// negative, counts 0), at most maxPresized: the size to grow a slice to
// for that many entries.
func presize(counts ...int32) int {
	n := 0
	for _, c := range counts {
		n += int(max(0, c))
	}
	return min(n, maxPresized)
}

// maxPresized bounds entryCount.
const maxPresized = 1 << 16

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
