package watcher

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

// FilePlan is one live data file of the snapshot and what Pinot should
// hold for it.
type FilePlan struct {
	Path string
	// Tasks are the file's scan tasks (a large file may be split).
	Tasks []table.FileScanTask
	// DeleteFingerprint identifies the delete files that apply ("" none).
	DeleteFingerprint string
	// SegmentName is the deterministic name of the file's first segment.
	SegmentName string
	Rows        int64
	SizeBytes   int64
}

// Plan is what a run must do to make Pinot match the snapshot.
type Plan struct {
	SnapshotID     int64
	SequenceNumber int64
	SchemaID       int
	// Build are files that are new or whose deletes changed.
	Build []FilePlan
	// Keep are files Pinot already holds as they should be.
	Keep map[string]checkpoint.FileState
	// Drop are files of the checkpoint no longer live.
	Drop []string
	// LiveFiles counts the data files of the snapshot.
	LiveFiles int
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
	live := groupTasks(tableName, tasks)
	plan.LiveFiles = len(live)
	for _, fp := range live {
		old, ok := cp.Files[fp.Path]
		if ok && old.DeleteFingerprint == fp.DeleteFingerprint { // also files whose rows were all deleted
			plan.Keep[fp.Path] = old
			continue
		}
		plan.Build = append(plan.Build, fp)
	}
	for path := range cp.Files {
		if _, ok := live[path]; !ok {
			plan.Drop = append(plan.Drop, path)
		}
	}
	sort.Strings(plan.Drop)
	sort.Slice(plan.Build, func(i, j int) bool { return plan.Build[i].Path < plan.Build[j].Path })
	return plan, nil
}

// groupTasks folds scan tasks by data file path.
func groupTasks(tableName string, tasks []table.FileScanTask) map[string]FilePlan {
	out := map[string]FilePlan{}
	for _, t := range tasks {
		path := t.File.FilePath()
		fp := out[path]
		fp.Path = path
		fp.Tasks = append(fp.Tasks, t)
		fp.Rows = t.File.Count()
		fp.SizeBytes = t.File.FileSizeBytes()
		out[path] = fp
	}
	for path, fp := range out {
		fp.DeleteFingerprint = deleteFingerprint(fp.Tasks)
		fp.SegmentName = SegmentName(tableName, path, fp.DeleteFingerprint, 0)
		out[path] = fp
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

// SegmentName is the deterministic name of part idx of a data file's
// segments: <table>_<hash of path and delete fingerprint>_<idx>. The same
// file with the same deletes always gets the same name (I2, I3).
func SegmentName(tableName, path, deleteFingerprint string, idx int) string {
	sum := sha256.Sum256([]byte(path + "\x00" + deleteFingerprint))
	prefix := unsafeSegmentChars.ReplaceAllString(tableName, "_")
	return fmt.Sprintf("%s_%s_%d", prefix, hex.EncodeToString(sum[:10]), idx)
}

// SegmentPrefix is the prefix every floe segment of the table starts with.
func SegmentPrefix(tableName string) string {
	return unsafeSegmentChars.ReplaceAllString(tableName, "_") + "_"
}
