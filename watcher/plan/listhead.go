package plan

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"
)

// listHead is the start of a snapshot's manifest list: the manifests the
// snapshot wrote itself, which writers list first (P13). whole is true
// when the list was read to its end, so ms is every manifest of it.
type listHead struct {
	ms    []iceberg.ManifestFile
	whole bool
	// total is the summary's total-data-files, which checks a fold that
	// read only the head (foldList, countReason).
	total int64
}

// ownCounts are the files a snapshot says it added and removed: the
// summary's added-data-files, deleted-data-files, added-delete-files and
// removed-delete-files (a count a summary leaves out is 0, as writers omit
// zero counts).
type ownCounts struct {
	addedData, deletedData, addedDeletes, removedDeletes int64
}

// summaryCounts reads s's ownCounts; false when s has no summary or a
// count is not a number.
func summaryCounts(s table.Snapshot) (ownCounts, bool) {
	if s.Summary == nil {
		return ownCounts{}, false
	}
	var out ownCounts
	for key, dst := range map[string]*int64{"added-data-files": &out.addedData, "deleted-data-files": &out.deletedData,
		"added-delete-files": &out.addedDeletes, "removed-delete-files": &out.removedDeletes} {
		if _, set := s.Summary.Properties[key]; !set {
			continue
		}
		n, ok := summaryInt(s, key)
		if !ok {
			return ownCounts{}, false
		}
		*dst = n
	}
	return out, true
}

// summaryInt reads a count the summary records ("total-data-files",
// "added-data-files", ...); false when it records none or not a
// non-negative number.
func summaryInt(s table.Snapshot, key string) (int64, bool) {
	if s.Summary == nil {
		return 0, false
	}
	v, set := s.Summary.Properties[key]
	if !set {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= 0
}

// take subtracts what manifest m holds from c when snapshot id wrote it.
func (c *ownCounts) take(m iceberg.ManifestFile, id int64) {
	if m.SnapshotID() != id {
		return
	}
	added, deleted := int64(max(0, m.AddedDataFiles())), int64(max(0, m.DeletedDataFiles()))
	if m.ManifestContent() == iceberg.ManifestContentData {
		c.addedData -= added
		c.deletedData -= deleted
	} else {
		c.addedDeletes -= added
		c.removedDeletes -= deleted
	}
}

// done reports whether every counted file has been seen.
func (c ownCounts) done() bool {
	return c.addedData <= 0 && c.deletedData <= 0 && c.addedDeletes <= 0 && c.removedDeletes <= 0
}

// head returns the manifests of snap's list up to the last one snap wrote
// with changes, reading the list only as far as that (P13), cached by the
// list's path. A list that cannot be read that way (no summary counts,
// format 1 or 3, a writer schema without the expected fields) is read
// whole.
func (j *job) head(ctx context.Context, snap table.Snapshot) (listHead, error) {
	key := "head:" + snap.ManifestList
	if v, ok := j.p.cache.get(key); ok {
		return v.(listHead), nil
	}
	if v, ok := j.p.cache.get("list:" + snap.ManifestList); ok {
		return listHead{ms: v.([]iceberg.ManifestFile), whole: true}, nil
	}
	counts, ok := summaryCounts(snap)
	if !ok || snap.ManifestList == "" || j.meta.Version() != 2 {
		return j.wholeHead(ctx, snap)
	}
	if err := ctx.Err(); err != nil {
		return listHead{}, err
	}
	h, err := j.readHead(snap, counts)
	if errors.Is(err, errNoLeanRead) {
		return j.wholeHead(ctx, snap)
	}
	if err != nil {
		return listHead{}, fmt.Errorf("read manifest list of snapshot %d: %w", snap.SnapshotID, err)
	}
	if h.whole {
		j.p.cache.put("list:"+snap.ManifestList, h.ms, listSize(snap.ManifestList, h.ms))
	} else {
		j.p.cache.countHead()
		j.p.cache.put(key, h, listSize(key, h.ms))
	}
	return h, nil
}

// wholeHead is head for a list read whole.
func (j *job) wholeHead(ctx context.Context, snap table.Snapshot) (listHead, error) {
	ms, err := j.manifests(ctx, snap)
	return listHead{ms: ms, whole: true}, err
}

// errNoLeanRead: the list's writer schema is not one readHead projects.
var errNoLeanRead = errors.New("manifest list schema not projected")

// readHead reads snap's manifest list record by record until the
// manifests of snap account for counts, or to its end.
func (j *job) readHead(snap table.Snapshot, counts ownCounts) (listHead, error) {
	f, err := j.fs.Open(snap.ManifestList)
	if err != nil {
		return listHead{}, err
	}
	defer f.Close()
	rd, err := ocf.NewReader(bufio.NewReaderSize(f, 64<<10), ocf.WithReaderSchemaFunc(leanListSchema))
	if err != nil {
		return listHead{}, err
	}
	defer rd.Close()
	var out listHead
	for !counts.done() {
		var r listRecord
		if err := rd.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) {
				out.whole = true
				return out, nil
			}
			return listHead{}, err
		}
		m := r.manifest()
		counts.take(m, snap.SnapshotID)
		out.ms = append(out.ms, m)
	}
	return out, nil
}

// listRecord is the part of a format 2 manifest list entry the planner
// reads; partition summaries and key metadata are skipped.
type listRecord struct {
	Path         string `avro:"manifest_path"`
	Length       int64  `avro:"manifest_length"`
	SpecID       int32  `avro:"partition_spec_id"`
	Content      int32  `avro:"content"`
	Seq          int64  `avro:"sequence_number"`
	MinSeq       int64  `avro:"min_sequence_number"`
	SnapshotID   int64  `avro:"added_snapshot_id"`
	Added        int32  `avro:"added_files_count"`
	Existing     int32  `avro:"existing_files_count"`
	Deleted      int32  `avro:"deleted_files_count"`
	AddedRows    int64  `avro:"added_rows_count"`
	ExistingRows int64  `avro:"existing_rows_count"`
	DeletedRows  int64  `avro:"deleted_rows_count"`
}

// leanFieldCount is the number of listRecord's fields.
const leanFieldCount = 13

// leanType is the Avro type the format 2 spec gives the manifest list
// field name that listRecord reads ("" for a field it skips).
func leanType(name string) string {
	switch name {
	case "manifest_path":
		return "string"
	case "partition_spec_id", "content", "added_files_count", "existing_files_count", "deleted_files_count":
		return "int"
	case "manifest_length", "sequence_number", "min_sequence_number", "added_snapshot_id",
		"added_rows_count", "existing_rows_count", "deleted_rows_count":
		return "long"
	}
	return ""
}

// leanListSchema projects the writer's schema of a manifest list onto
// listRecord's fields, keeping the writer's record name and field order; a list of
// format 1 or 3, or whose schema lacks one of the fields or gives it
// another type, is not projected (errNoLeanRead).
func leanListSchema(rd *ocf.Reader) (*avro.Schema, error) {
	if v, ok := rd.Metadata()["format-version"]; ok && string(v) != "2" {
		return nil, errNoLeanRead
	}
	root := rd.Schema().Root()
	if root.Type != "record" {
		return nil, errNoLeanRead
	}
	kept := root.Fields[:0:0]
	for _, f := range root.Fields {
		if f.Name == "first_row_id" {
			return nil, errNoLeanRead // format 3: entries inherit row ids from the list
		}
		if want := leanType(f.Name); want != "" {
			if f.Type.Type != want || f.Type.LogicalType != "" {
				return nil, errNoLeanRead
			}
			kept = append(kept, f)
		}
	}
	if len(kept) != leanFieldCount {
		return nil, errNoLeanRead
	}
	proj := *root
	proj.Fields = kept
	return proj.Schema()
}

// manifest is the record as the iceberg-go manifest file it describes.
func (r listRecord) manifest() iceberg.ManifestFile {
	return iceberg.NewManifestFile(2, r.Path, r.Length, r.SpecID, r.SnapshotID).
		SequenceNum(r.Seq, r.MinSeq).Content(iceberg.ManifestContent(r.Content)).
		AddedFiles(r.Added).ExistingFiles(r.Existing).DeletedFiles(r.Deleted).
		AddedRows(r.AddedRows).ExistingRows(r.ExistingRows).DeletedRows(r.DeletedRows).Build()
}

// listSize estimates the memory a decoded manifest list holds.
func listSize(key string, ms []iceberg.ManifestFile) int64 {
	size := int64(len(key)) + 64
	for _, m := range ms {
		size += 256 + int64(len(m.FilePath()))
	}
	return size
}
