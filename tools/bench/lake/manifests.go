package lake

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// KeepSnapshots is how many snapshots a table built by
// BuildManifestPerFile keeps after each commit: older ones are expired in
// the same commit, as a maintained table's snapshot expiry keeps them.
const KeepSnapshots = 3

// perFile is the state of a table written one manifest per commit.
type perFile struct {
	template iceberg.DataFile // the template file's entry, whose stats every copy repeats
}

// BuildManifestPerFile makes a table of files data files of rows rows each
// under root/<files> in the shape a writer that commits one file per
// commit and never merges manifests leaves, with its snapshot history
// expired to the last KeepSnapshots: the current snapshot's manifest list
// holds one data manifest per data file, each with one ADDED entry whose
// snapshot id and data sequence number are those of the commit that added
// it (most of those commits expired). It is built in a few commits: the
// manifests of all but the last files are written at once, with the
// snapshot ids and sequence numbers their own commits would have had, and
// listed by one snapshot; the last files are real one-file commits. Every
// later AddFiles(ctx, n) makes n one-file commits that keep the shape.
func BuildManifestPerFile(ctx context.Context, root string, files, rows int) (*Lake, error) {
	l, err := open(ctx, root, files, rows)
	if err != nil {
		return nil, err
	}
	_, tasks, err := l.liveFiles(ctx)
	if err != nil {
		return nil, l.fail(err)
	}
	if len(tasks) != 1 {
		return nil, l.fail(fmt.Errorf("find template file: %d live files, want 1", len(tasks)))
	}
	l.perFile = &perFile{template: tasks[0].File}
	last := min(files-l.Files, KeepSnapshots-1) // real one-file commits at the end
	if bulk := files - l.Files - last; bulk > 0 {
		if err := l.commitManifests(ctx, bulk); err != nil {
			return nil, l.fail(err)
		}
	}
	if err := l.appendEach(ctx, last); err != nil {
		return nil, l.fail(err)
	}
	return l, nil
}

// appendEach adds n copies of the template, one commit each.
func (l *Lake) appendEach(ctx context.Context, n int) error {
	for range n {
		if err := l.commitManifests(ctx, 1); err != nil {
			return err
		}
	}
	return nil
}

// commitManifests copies the template n times and commits one snapshot
// whose manifest list is n new manifests, one per copy, ahead of the
// current snapshot's manifests. The copies take the next n sequence
// numbers; the last is the snapshot's own, the others carry snapshot ids
// of commits the snapshot's history no longer holds (expired). Snapshots
// beyond the last KeepSnapshots are expired in the same commit.
func (l *Lake) commitManifests(ctx context.Context, n int) error {
	tbl, err := l.Load(ctx)
	if err != nil {
		return err
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return fmt.Errorf("open table io: %w", err)
	}
	wfs, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return errors.New("table io cannot write files")
	}
	meta := tbl.Metadata()
	parent := meta.CurrentSnapshot()
	if parent == nil {
		return errors.New("table has no current snapshot")
	}
	old, err := parent.Manifests(fs)
	if err != nil {
		return fmt.Errorf("read manifest list %s: %w", parent.ManifestList, err)
	}
	seq0 := meta.LastSequenceNumber()
	snapID := newSnapshotID()
	added := make([]iceberg.ManifestFile, n)
	for i := range n {
		id := snapID
		if i < n-1 {
			id = newSnapshotID()
		}
		mf, err := l.writeFileManifest(tbl, wfs, l.Files+i, id, seq0+int64(i)+1)
		if err != nil {
			return err
		}
		added[n-1-i] = mf // newest first, as writers list them
	}
	list, err := writeManifestList(tbl, wfs, snapID, parent.SnapshotID, seq0+int64(n), append(added, old...))
	if err != nil {
		return err
	}
	snap := l.snapshot(meta, parent, snapID, seq0+int64(n), list)
	if err := l.commitSnapshot(ctx, meta, snap); err != nil {
		return err
	}
	l.Files += n
	return nil
}

// writeFileManifest copies the template to data file number file and
// writes the manifest that adds it: one ADDED entry of snapshot snapID,
// whose sequence number (seq, in the manifest list) it inherits.
func (l *Lake) writeFileManifest(tbl *table.Table, wfs iceio.WriteFileIO, file int, snapID, seq int64) (iceberg.ManifestFile, error) {
	p := filepath.Join(l.dataDir, fmt.Sprintf("f%06d.parquet", file))
	if err := copyFile(l.template, p); err != nil {
		return nil, err
	}
	df, err := l.perFile.copyOf(tbl.Spec(), "file://"+p)
	if err != nil {
		return nil, err
	}
	loc := tbl.Location() + "/metadata/" + uuid.NewString() + "-m0.avro"
	out, err := wfs.Create(loc)
	if err != nil {
		return nil, fmt.Errorf("create manifest %s: %w", loc, err)
	}
	entry := iceberg.NewManifestEntry(iceberg.EntryStatusADDED, &snapID, nil, nil, df)
	mf, err := iceberg.WriteManifest(loc, out, 2, tbl.Spec(), tbl.Schema(), snapID, []iceberg.ManifestEntry{entry})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write manifest %s: %w", loc, err)
	}
	return iceberg.NewManifestFile(2, mf.FilePath(), mf.Length(), mf.PartitionSpecID(), snapID).
		SequenceNum(seq, seq).AddedFiles(mf.AddedDataFiles()).AddedRows(mf.AddedRows()).
		Partitions(mf.Partitions()).Build(), nil
}

// copyOf is the template's data file entry for a copy at path.
func (p *perFile) copyOf(spec iceberg.PartitionSpec, path string) (iceberg.DataFile, error) {
	t := p.template
	b, err := iceberg.NewDataFileBuilder(spec, iceberg.EntryContentData, path, t.FileFormat(),
		nil, nil, nil, t.Count(), t.FileSizeBytes())
	if err != nil {
		return nil, fmt.Errorf("describe data file %s: %w", path, err)
	}
	return b.ColumnSizes(t.ColumnSizes()).ValueCounts(t.ValueCounts()).NullValueCounts(t.NullValueCounts()).
		NaNValueCounts(t.NaNValueCounts()).LowerBoundValues(t.LowerBoundValues()).
		UpperBoundValues(t.UpperBoundValues()).SplitOffsets(t.SplitOffsets()).Build(), nil
}

// writeManifestList writes snapshot snapID's manifest list.
func writeManifestList(tbl *table.Table, wfs iceio.WriteFileIO, snapID, parentID, seq int64, manifests []iceberg.ManifestFile) (string, error) {
	loc := fmt.Sprintf("%s/metadata/snap-%d-0-%s.avro", tbl.Location(), snapID, uuid.NewString())
	out, err := wfs.Create(loc)
	if err != nil {
		return "", fmt.Errorf("create manifest list %s: %w", loc, err)
	}
	err = iceberg.WriteManifestList(2, out, snapID, &parentID, &seq, 0, manifests)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write manifest list %s: %w", loc, err)
	}
	return loc, nil
}

// snapshot is the append snapshot listing list: its summary counts the
// one file it added itself and the table's totals.
func (l *Lake) snapshot(meta table.Metadata, parent *table.Snapshot, snapID, seq int64, list string) *table.Snapshot {
	t := l.perFile.template
	files := int64(l.Files) + seq - meta.LastSequenceNumber()
	props := iceberg.Properties{
		"added-data-files": "1", "added-records": strconv.FormatInt(t.Count(), 10),
		"added-files-size": strconv.FormatInt(t.FileSizeBytes(), 10), "changed-partition-count": "1",
		"total-data-files": strconv.FormatInt(files, 10), "total-records": strconv.FormatInt(files*t.Count(), 10),
		"total-files-size": strconv.FormatInt(files*t.FileSizeBytes(), 10), "total-delete-files": "0",
		"total-position-deletes": "0", "total-equality-deletes": "0",
	}
	schemaID := meta.CurrentSchema().ID
	parentID := parent.SnapshotID
	return &table.Snapshot{SnapshotID: snapID, ParentSnapshotID: &parentID, SequenceNumber: seq,
		TimestampMs: time.Now().UnixMilli(), ManifestList: list, SchemaID: &schemaID,
		Summary: &table.Summary{Operation: table.OpAppend, Properties: props}}
}

// commitSnapshot adds snap, makes it main's head and expires every
// snapshot but the last KeepSnapshots of its history, in one catalog
// commit that requires main to be where meta has it.
func (l *Lake) commitSnapshot(ctx context.Context, meta table.Metadata, snap *table.Snapshot) error {
	keep := map[int64]bool{snap.SnapshotID: true}
	for _, s := range table.AncestorsOf(*snap.ParentSnapshotID, meta.SnapshotByID) {
		if len(keep) == KeepSnapshots {
			break
		}
		keep[s.SnapshotID] = true
	}
	var expired []int64
	for _, s := range meta.Snapshots() {
		if !keep[s.SnapshotID] {
			expired = append(expired, s.SnapshotID)
		}
	}
	updates := []table.Update{table.NewAddSnapshotUpdate(snap),
		table.NewSetSnapshotRefUpdate(table.MainBranch, snap.SnapshotID, table.BranchRef, 0, 0, 0)}
	if len(expired) > 0 {
		updates = append(updates, table.NewRemoveSnapshotsUpdate(expired, false))
	}
	reqs := []table.Requirement{table.AssertTableUUID(meta.TableUUID()),
		table.AssertRefSnapshotID(table.MainBranch, snap.ParentSnapshotID)}
	if _, _, err := l.cat.CommitTable(ctx, l.ident, reqs, updates); err != nil {
		return fmt.Errorf("commit snapshot %d (sequence number %d): %w", snap.SnapshotID, snap.SequenceNumber, err)
	}
	return nil
}

// newSnapshotID is a random positive snapshot id, as writers choose them.
func newSnapshotID() int64 { return rand.Int64N(math.MaxInt64-1) + 1 }
