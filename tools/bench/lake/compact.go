package lake

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"
)

// Compact rewrites every data file of the table into into files holding
// the same rows, as one replace snapshot (a bin-pack compaction): each new
// file holds the rows of its share of old files (copies of a file written
// once per share size, so that large tables compact in seconds).
func (l *Lake) Compact(ctx context.Context, into int) error {
	tbl, tasks, err := l.liveFiles(ctx)
	if err != nil {
		return err
	}
	into = max(1, min(into, len(tasks)))
	q, r := len(tasks)/into, len(tasks)%into
	fs, err := tbl.FS(ctx)
	if err != nil {
		return err
	}
	tx := tbl.NewTransaction()
	rw := tx.NewRewrite(nil)
	for _, tk := range tasks {
		rw.DeleteFile(tk.File)
	}
	templates := map[int]string{}
	for i := range into {
		share := q
		if i < r {
			share++
		}
		if templates[share] == "" {
			if templates[share], err = l.writeShare(ctx, tbl, share); err != nil {
				return err
			}
		}
		p := filepath.Join(l.dataDir, fmt.Sprintf("c%06d.parquet", i))
		if err := copyFile(templates[share], p); err != nil {
			return err
		}
		df, err := table.FileToDataFile(ctx, fs, "file://"+p, tbl.Schema(), tbl.Spec(), 0, tbl.Properties())
		if err != nil {
			return fmt.Errorf("read compacted file %s: %w", p, err)
		}
		rw.AddDataFile(df)
	}
	if err := rw.Commit(ctx); err != nil {
		return fmt.Errorf("stage compaction: %w", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit compaction: %w", err)
	}
	l.Files = into
	return nil
}

// writeShare writes a Parquet file holding share files' rows (the
// template's rows share times) and returns its local path.
func (l *Lake) writeShare(ctx context.Context, tbl *table.Table, share int) (string, error) {
	asc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return "", err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, asc)
	defer b.Release()
	for range share {
		for i := 0; i < l.rows; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", i))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var records iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	var path string
	for df, err := range table.WriteRecords(ctx, tbl, asc, records) {
		if err != nil {
			return "", fmt.Errorf("write a compacted file of %d files' rows: %w", share, err)
		}
		if path != "" {
			return "", fmt.Errorf("writing %d files' rows gave more than one file", share)
		}
		path = strings.TrimPrefix(df.FilePath(), "file://")
	}
	return path, nil
}

// liveFiles loads the table and its live data files (one scan task each).
func (l *Lake) liveFiles(ctx context.Context) (*table.Table, []table.FileScanTask, error) {
	tbl, err := l.Load(ctx)
	if err != nil {
		return nil, nil, err
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("plan files: %w", err)
	}
	return tbl, tasks, nil
}
