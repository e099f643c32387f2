package plan

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// unitFormat is the version of the encoded unit. Format: append versions,
// never renumber. 1 adds the first layout.
const unitFormat = 1

// ErrUnitFormat: an encoded unit this build cannot read.
var ErrUnitFormat = errors.New("unsupported unit encoding")

// unitRecord is the JSON form of a Unit (P9). Data files carry every
// field table.Scan.ReadTasks reads; column statistics are left out.
type unitRecord struct {
	V     int          `json:"v"`
	Key   string       `json:"key"`
	Files []fileRecord `json:"files"`
}

type fileRecord struct {
	Path              string       `json:"path"`
	DeleteFingerprint string       `json:"deleteFingerprint,omitempty"`
	Partition         string       `json:"partition,omitempty"`
	DataSeq           int64        `json:"dataSeq"`
	Rows              int64        `json:"rows"`
	SizeBytes         int64        `json:"sizeBytes"`
	Tasks             []taskRecord `json:"tasks"`
	// KeyBounds are File.KeyBounds (absent from units encoded before
	// they were recorded: the file's checkpoint entry then has none).
	KeyBounds checkpoint.KeyBounds `json:"keyBounds,omitempty"`
}

type taskRecord struct {
	Start      int64            `json:"start"`
	Length     int64            `json:"length"`
	DataSeq    *int64           `json:"dataSeq,omitempty"`
	FirstRowID *int64           `json:"firstRowId,omitempty"`
	File       dataFileRecord   `json:"file"`
	PosDeletes []dataFileRecord `json:"posDeletes,omitempty"`
	EqDeletes  []dataFileRecord `json:"eqDeletes,omitempty"`
	DVs        []dataFileRecord `json:"dvs,omitempty"`
}

type dataFileRecord struct {
	Content            string           `json:"content"` // data, position_deletes, equality_deletes
	Path               string           `json:"path"`
	Format             string           `json:"format"`
	SpecID             int32            `json:"specId"`
	Partition          []partitionField `json:"partition,omitempty"`
	Records            int64            `json:"records"`
	SizeBytes          int64            `json:"sizeBytes"`
	EqualityIDs        []int            `json:"equalityIds,omitempty"`
	ReferencedDataFile *string          `json:"referencedDataFile,omitempty"`
	ContentOffset      *int64           `json:"contentOffset,omitempty"`
	ContentSize        *int64           `json:"contentSize,omitempty"`
	FirstRowID         *int64           `json:"firstRowId,omitempty"`
	SplitOffsets       []int64          `json:"splitOffsets,omitempty"`
	SortOrderID        *int             `json:"sortOrderId,omitempty"`
	KeyMetadata        []byte           `json:"keyMetadata,omitempty"`
}

type partitionField struct {
	Field int `json:"field"`
	value
}

var contentNames = map[iceberg.ManifestEntryContent]string{
	iceberg.EntryContentData: "data", iceberg.EntryContentPosDeletes: "position_deletes",
	iceberg.EntryContentEqDeletes: "equality_deletes",
}

// EncodeUnit serialises a unit so that another replica can build it
// without planning: its files, their scan tasks and every delete file
// attached (P9). The receiver needs the same table metadata (DecodeUnit).
func EncodeUnit(u Unit) ([]byte, error) {
	rec := unitRecord{V: unitFormat, Key: u.Key, Files: make([]fileRecord, len(u.Files))}
	for i, f := range u.Files {
		fr := fileRecord{Path: f.Path, DeleteFingerprint: f.DeleteFingerprint, Partition: f.Partition,
			DataSeq: f.DataSeq, Rows: f.Rows, SizeBytes: f.SizeBytes, Tasks: make([]taskRecord, len(f.Tasks)),
			KeyBounds: f.KeyBounds}
		for k, t := range f.Tasks {
			tr, err := encodeTask(t)
			if err != nil {
				return nil, fmt.Errorf("encode unit %s: file %s: %w", u.Key, f.Path, err)
			}
			fr.Tasks[k] = tr
		}
		rec.Files[i] = fr
	}
	return json.Marshal(rec)
}

func encodeTask(t table.FileScanTask) (taskRecord, error) {
	tr := taskRecord{Start: t.Start, Length: t.Length, DataSeq: t.DataSequenceNumber, FirstRowID: t.FirstRowID}
	var err error
	if tr.File, err = encodeDataFile(t.File); err != nil {
		return taskRecord{}, err
	}
	if tr.PosDeletes, err = encodeDataFiles(t.DeleteFiles); err != nil {
		return taskRecord{}, err
	}
	if tr.EqDeletes, err = encodeDataFiles(t.EqualityDeleteFiles); err != nil {
		return taskRecord{}, err
	}
	if tr.DVs, err = encodeDataFiles(t.DeletionVectorFiles); err != nil {
		return taskRecord{}, err
	}
	return tr, nil
}

func encodeDataFiles(dfs []iceberg.DataFile) ([]dataFileRecord, error) {
	if len(dfs) == 0 {
		return nil, nil
	}
	out := make([]dataFileRecord, len(dfs))
	for i, df := range dfs {
		r, err := encodeDataFile(df)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func encodeDataFile(df iceberg.DataFile) (dataFileRecord, error) {
	if df == nil {
		return dataFileRecord{}, errors.New("nil data file")
	}
	content, ok := contentNames[df.ContentType()]
	if !ok {
		return dataFileRecord{}, fmt.Errorf("%s: unknown content %d", df.FilePath(), df.ContentType())
	}
	r := dataFileRecord{
		Content: content, Path: df.FilePath(), Format: string(df.FileFormat()), SpecID: df.SpecID(),
		Records: df.Count(), SizeBytes: df.FileSizeBytes(), EqualityIDs: df.EqualityFieldIDs(),
		ReferencedDataFile: df.ReferencedDataFile(), ContentOffset: df.ContentOffset(),
		ContentSize: df.ContentSizeInBytes(), FirstRowID: df.FirstRowID(), SplitOffsets: df.SplitOffsets(),
		SortOrderID: df.SortOrderID(), KeyMetadata: df.KeyMetadata(),
	}
	for field, v := range df.Partition() {
		ev, err := encodeValue(v)
		if err != nil {
			return dataFileRecord{}, fmt.Errorf("%s: partition field %d: %w", df.FilePath(), field, err)
		}
		r.Partition = append(r.Partition, partitionField{Field: field, value: ev})
	}
	slices.SortFunc(r.Partition, func(a, b partitionField) int { return cmp.Compare(a.Field, b.Field) })
	return r, nil
}

// DecodeUnit rebuilds a unit encoded by EncodeUnit, its scan tasks
// included, without planning. tbl must hold the partition specs the
// unit's files were written with (the table at the run's metadata
// location, or later).
func DecodeUnit(b []byte, tbl *table.Table) (Unit, error) {
	var rec unitRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return Unit{}, fmt.Errorf("decode unit: %w", err)
	}
	if rec.V != unitFormat {
		return Unit{}, fmt.Errorf("decode unit %s: %w: version %d (this build reads %d)", rec.Key, ErrUnitFormat, rec.V, unitFormat)
	}
	u := Unit{Key: rec.Key, Files: make([]File, len(rec.Files))}
	for i, fr := range rec.Files {
		f := File{Path: fr.Path, DeleteFingerprint: fr.DeleteFingerprint, Partition: fr.Partition, DataSeq: fr.DataSeq,
			Rows: fr.Rows, SizeBytes: fr.SizeBytes, Tasks: make([]table.FileScanTask, len(fr.Tasks)), KeyBounds: fr.KeyBounds}
		for k, tr := range fr.Tasks {
			t, err := decodeTask(tr, tbl.Metadata())
			if err != nil {
				return Unit{}, fmt.Errorf("decode unit %s: file %s: %w", rec.Key, fr.Path, err)
			}
			f.Tasks[k] = t
		}
		u.Files[i] = f
	}
	return u, nil
}

func decodeTask(tr taskRecord, meta table.Metadata) (table.FileScanTask, error) {
	t := table.FileScanTask{Start: tr.Start, Length: tr.Length, DataSequenceNumber: tr.DataSeq, FirstRowID: tr.FirstRowID}
	var err error
	if t.File, err = decodeDataFile(tr.File, meta); err != nil {
		return table.FileScanTask{}, err
	}
	if t.DeleteFiles, err = decodeDataFiles(tr.PosDeletes, meta); err != nil {
		return table.FileScanTask{}, err
	}
	if t.EqualityDeleteFiles, err = decodeDataFiles(tr.EqDeletes, meta); err != nil {
		return table.FileScanTask{}, err
	}
	if t.DeletionVectorFiles, err = decodeDataFiles(tr.DVs, meta); err != nil {
		return table.FileScanTask{}, err
	}
	return t, nil
}

func decodeDataFiles(rs []dataFileRecord, meta table.Metadata) ([]iceberg.DataFile, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	out := make([]iceberg.DataFile, len(rs))
	for i, r := range rs {
		df, err := decodeDataFile(r, meta)
		if err != nil {
			return nil, err
		}
		out[i] = df
	}
	return out, nil
}

func decodeDataFile(r dataFileRecord, meta table.Metadata) (iceberg.DataFile, error) {
	spec := meta.PartitionSpecByID(int(r.SpecID))
	if spec == nil {
		return nil, fmt.Errorf("%s: partition spec %d is not in the table metadata", r.Path, r.SpecID)
	}
	content := iceberg.ManifestEntryContent(-1)
	for c, name := range contentNames {
		if name == r.Content {
			content = c
		}
	}
	part := make(map[int]any, len(r.Partition))
	for _, pf := range r.Partition {
		v, err := decodeValue(pf.value)
		if err != nil {
			return nil, fmt.Errorf("%s: partition field %d: %w", r.Path, pf.Field, err)
		}
		part[pf.Field] = v
	}
	b, err := iceberg.NewDataFileBuilder(*spec, content, r.Path, iceberg.FileFormat(r.Format), part, nil, nil,
		r.Records, r.SizeBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Path, err)
	}
	setOptional(b, r)
	return b.Build(), nil
}

// setOptional sets the optional fields a record carries.
func setOptional(b *iceberg.DataFileBuilder, r dataFileRecord) {
	if len(r.EqualityIDs) > 0 {
		b.EqualityFieldIDs(r.EqualityIDs)
	}
	if r.ReferencedDataFile != nil {
		b.ReferencedDataFile(*r.ReferencedDataFile)
	}
	if r.ContentOffset != nil {
		b.ContentOffset(*r.ContentOffset)
	}
	if r.ContentSize != nil {
		b.ContentSizeInBytes(*r.ContentSize)
	}
	if r.FirstRowID != nil {
		b.FirstRowID(*r.FirstRowID)
	}
	if len(r.SplitOffsets) > 0 {
		b.SplitOffsets(r.SplitOffsets)
	}
	if r.SortOrderID != nil {
		b.SortOrderID(*r.SortOrderID)
	}
	if len(r.KeyMetadata) > 0 {
		b.KeyMetadata(r.KeyMetadata)
	}
}
