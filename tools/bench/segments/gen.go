package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/pinot/spec"
	floeparquet "github.com/floehq/floe/segments/parquet"
)

// benchRow is one row of the benchmark file: a long, a double, a
// low-cardinality string, a high-cardinality string, a timestamp and a
// multi-value int.
type benchRow struct {
	ID      int64   `parquet:"id"`
	Value   float64 `parquet:"value"`
	Country string  `parquet:"country"`
	UserID  string  `parquet:"user_id"`
	TS      int64   `parquet:"ts,timestamp(millisecond)"`
	Tags    []int32 `parquet:"tags,list"`
}

// benchSchema is the Pinot schema both floe and Pinot build with.
const benchSchema = `{
  "schemaName": "bench",
  "dimensionFieldSpecs": [
    {"name": "country", "dataType": "STRING"},
    {"name": "user_id", "dataType": "STRING"},
    {"name": "tags", "dataType": "INT", "singleValueField": false}
  ],
  "metricFieldSpecs": [
    {"name": "id", "dataType": "LONG"},
    {"name": "value", "dataType": "DOUBLE"}
  ],
  "dateTimeFieldSpecs": [
    {"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:MILLISECONDS"}
  ]
}`

// benchTableConfig is the table config Pinot's creator gets.
const benchTableConfig = `{"tableName": "bench", "tableType": "OFFLINE", "metadata": {}, "tenants": {},
  "segmentsConfig": {"replication": "1", "timeColumnName": "ts"}, "tableIndexConfig": {}}`

func cmdGen(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output Parquet file")
	rows := fs.Int("rows", 5_000_000, "rows to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("gen: -o is required")
	}
	start := time.Now()
	if err := writeBenchFile(*out, *rows); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d rows to %s in %s\n", *rows, *out, time.Since(start).Round(time.Millisecond))
	return nil
}

// writeBenchFile writes rows deterministic rows (Snappy, 1M-row groups)
// to a temporary file renamed into place when complete.
func writeBenchFile(path string, rows int) error {
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	defer os.Remove(tmp)
	w := parquet.NewGenericWriter[benchRow](f, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(1_000_000))
	rng := rand.New(rand.NewPCG(1, 2))
	countries := make([]string, 200)
	for i := range countries {
		countries[i] = fmt.Sprintf("country-%03d", i)
	}
	buf := make([]benchRow, 0, 10_000)
	for i := 0; i < rows; i++ {
		r := benchRow{ID: int64(i)*7 + rng.Int64N(7), Value: rng.NormFloat64() * 1000,
			Country: countries[rng.IntN(len(countries))], UserID: fmt.Sprintf("user-%09d", rng.IntN(2_000_000)),
			TS: 1_700_000_000_000 + int64(i)*10 + rng.Int64N(10)}
		for n := rng.IntN(5); n > 0; n-- {
			r.Tags = append(r.Tags, int32(rng.IntN(1000)))
		}
		if buf = append(buf, r); len(buf) == cap(buf) || i == rows-1 {
			if _, err := w.Write(buf); err != nil {
				f.Close()
				return fmt.Errorf("gen: write rows: %w", err)
			}
			buf = buf[:0]
		}
	}
	if err := w.Close(); err != nil {
		f.Close()
		return fmt.Errorf("gen: close writer: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return os.Rename(tmp, path)
}

// cmdDecode drains floe's Parquet source without building a segment and
// prints the row count.
func cmdDecode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	schemaPath := fs.String("schema", "", "Pinot schema JSON (default: the benchmark schema)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("decode: one Parquet file expected")
	}
	doc := []byte(benchSchema)
	if *schemaPath != "" {
		b, err := os.ReadFile(*schemaPath)
		if err != nil {
			return fmt.Errorf("decode: %w", err)
		}
		doc = b
	}
	var schema spec.Schema
	if err := json.Unmarshal(doc, &schema); err != nil {
		return fmt.Errorf("decode: parse schema: %w", err)
	}
	src, err := floeparquet.OpenFile(ctx, fs.Arg(0), floeparquet.Config{Schema: &schema})
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	defer src.Close()
	rows := 0
	for {
		b, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("decode: %w", err)
		}
		rows += b.Rows
	}
	fmt.Fprintf(stdout, "%d\n", rows)
	return nil
}
