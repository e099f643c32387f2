package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// File is one live data file of the snapshot that a unit builds.
type File struct {
	Path string
	// Tasks are the file's scan tasks, delete files attached.
	Tasks []table.FileScanTask
	// DeleteFingerprint identifies the delete files that apply ("" none).
	DeleteFingerprint string
	// Partition is the canonical partition key, spec id included ("" when
	// the file's spec is unpartitioned).
	Partition string
	// DataSeq is the file's data sequence number.
	DataSeq   int64
	Rows      int64
	SizeBytes int64
}

// Unit is what one build turns into segments: one data file, or several
// small files of one partition coalesced. Its segments are Key_0, Key_1, ...
type Unit struct {
	Key   string
	Files []File
}

// SegmentName is the name of the unit's segment idx.
func (u Unit) SegmentName(idx int) string { return fmt.Sprintf("%s_%d", u.Key, idx) }

// Plan is what a run must do to make Pinot match the snapshot.
type Plan struct {
	SnapshotID     int64
	SequenceNumber int64
	SchemaID       int
	// Build are the units to build, sorted by Key.
	Build []Unit
	// Keep are files Pinot already holds as they should be.
	Keep map[string]checkpoint.FileState
	// Drop are files of the checkpoint no longer live (sorted).
	Drop []string
	// Replacing: Build or Drop touch something Pinot holds, so the run
	// must swap atomically.
	Replacing bool
	// LiveFiles counts the data files of the snapshot.
	LiveFiles int
	// Incremental: planned by folding manifests (false: full-state diff).
	Incremental bool
}

// PlanRun diffs the live data files of the table's current snapshot
// against the checkpoint. The comparison is by data file path and the
// fingerprint of the delete files applied to it, so appends, overwrites,
// compactions, merge-on-read deletes, rollbacks and recreated tables all
// reduce to the same answer: build what is missing, drop what is gone.
func PlanRun(ctx context.Context, tableName string, tbl *table.Table, cp checkpoint.Checkpoint) (*Plan, error) {
	snap := tbl.CurrentSnapshot()
	plan := &Plan{Keep: map[string]checkpoint.FileState{}}
	if snap == nil {
		for path := range cp.Files {
			plan.Drop = append(plan.Drop, path)
		}
		sort.Strings(plan.Drop)
		plan.Replacing = len(plan.Drop) > 0
		return plan, nil
	}
	plan.SnapshotID, plan.SequenceNumber = snap.SnapshotID, snap.SequenceNumber
	if snap.SchemaID != nil {
		plan.SchemaID = *snap.SchemaID
	}
	tasks, err := tbl.Scan(table.WithSnapshotID(snap.SnapshotID)).PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan files of snapshot %d: %w", snap.SnapshotID, err)
	}
	live := groupTasks(tasks)
	plan.LiveFiles = len(live)
	for _, f := range live {
		old, ok := cp.Files[f.Path]
		if ok && old.DeleteFingerprint == f.DeleteFingerprint { // also files whose rows were all deleted
			plan.Keep[f.Path] = old
			continue
		}
		plan.Replacing = plan.Replacing || ok
		plan.Build = append(plan.Build, Unit{Key: fileKey(tableName, f.Path, f.DeleteFingerprint), Files: []File{f}})
	}
	for path := range cp.Files {
		if _, ok := live[path]; !ok {
			plan.Drop = append(plan.Drop, path)
		}
	}
	sort.Strings(plan.Drop)
	plan.Replacing = plan.Replacing || len(plan.Drop) > 0
	sort.Slice(plan.Build, func(i, j int) bool { return plan.Build[i].Key < plan.Build[j].Key })
	return plan, nil
}

// groupTasks folds scan tasks by data file path.
func groupTasks(tasks []table.FileScanTask) map[string]File {
	out := map[string]File{}
	for _, t := range tasks {
		path := t.File.FilePath()
		f := out[path]
		f.Path = path
		f.Tasks = append(f.Tasks, t)
		f.Rows = t.File.Count()
		f.SizeBytes = t.File.FileSizeBytes()
		out[path] = f
	}
	for path, f := range out {
		f.DeleteFingerprint = deleteFingerprint(f.Tasks)
		out[path] = f
	}
	return out
}

// deleteFingerprint hashes the sorted paths of every delete file applied
// to the file's tasks; "" when there are none.
func deleteFingerprint(tasks []table.FileScanTask) string {
	var paths []string
	for _, t := range tasks {
		for _, d := range t.DeleteFiles {
			paths = append(paths, "pos:"+d.FilePath())
		}
		for _, d := range t.EqualityDeleteFiles {
			paths = append(paths, "eq:"+d.FilePath())
		}
		for _, d := range t.DeletionVectorFiles {
			paths = append(paths, fmt.Sprintf("dv:%s@%d", d.FilePath(), derefInt64(d.ContentOffset())))
		}
	}
	if len(paths) == 0 {
		return ""
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	sum := sha256.Sum256([]byte(strings.Join(paths, "\n")))
	return hex.EncodeToString(sum[:12])
}

func derefInt64(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

var unsafeSegmentChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// fileKey is the key of a unit of one data file: <table>_<hash of path and
// delete fingerprint>.
func fileKey(tableName, path, deleteFingerprint string) string {
	sum := sha256.Sum256([]byte(path + "\x00" + deleteFingerprint))
	return SegmentPrefix(tableName) + hex.EncodeToString(sum[:10])
}

// SegmentName is the deterministic name of part idx of a data file's
// segments: <table>_<hash of path and delete fingerprint>_<idx>. The same
// file with the same deletes always gets the same name (I2, I3).
func SegmentName(tableName, path, deleteFingerprint string, idx int) string {
	return Unit{Key: fileKey(tableName, path, deleteFingerprint)}.SegmentName(idx)
}

// SegmentPrefix is the prefix every floe segment of the table starts with.
func SegmentPrefix(tableName string) string {
	return unsafeSegmentChars.ReplaceAllString(tableName, "_") + "_"
}
