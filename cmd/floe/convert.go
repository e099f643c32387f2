package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/floehq/floe/internal/cpuprofile"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/parquet"
)

// convertOptions are the flags of "floe convert".
type convertOptions struct {
	input        string
	schemaPath   string
	table        string
	outDir       string
	segmentName  string
	tar          bool
	timeColumn   string
	noDictionary string
	inverted     string
	sorted       string
	batchRows    int
	cpuProfile   string
	rename       renameFlag
}

// renameFlag collects --rename OLD=NEW pairs: Parquet column → Pinot column.
type renameFlag map[string]string

func (r renameFlag) String() string { return fmt.Sprint(map[string]string(r)) }

func (r renameFlag) Set(v string) error {
	from, to, ok := strings.Cut(v, "=")
	if !ok || from == "" || to == "" {
		return fmt.Errorf("want PARQUET_NAME=PINOT_NAME, got %q", v)
	}
	if _, dup := r[from]; dup {
		return fmt.Errorf("column %q renamed twice", from)
	}
	r[from] = to
	return nil
}

const convertUsage = `usage: floe convert FILE.parquet [--schema pinot-schema.json] --table T -o DIR
       [--segment-name N] [--tar] [--time-column C] [--no-dictionary a,b] [--inverted a,b] [--sorted c]
       [--rename 'parquet name=pinot_name' ...]

Converts one Parquet file into one Pinot segment (v3) under DIR, or into
DIR/N.tar.gz with --tar. Without --schema, a plain schema is inferred from the
Parquet types (see parquet.InferSchema): integers → INT/LONG, floats,
booleans, strings/UUIDs → STRING, binaries → BYTES, decimals → BIG_DECIMAL,
dates → INT days, times → LONG micros, timestamps → TIMESTAMP millis, lists of
primitives → multi-value, structs/maps → JSON; --time-column makes that column
the DATE_TIME time column. On failure nothing is left in DIR.
`

func parseConvertFlags(args []string, stderr io.Writer) (*convertOptions, error) {
	o := &convertOptions{}
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, convertUsage); fs.PrintDefaults() }
	fs.StringVar(&o.schemaPath, "schema", "", "Pinot schema JSON file (default: inferred from the Parquet file)")
	fs.StringVar(&o.table, "table", "", "raw Pinot table name (default: the schema name)")
	fs.StringVar(&o.outDir, "o", "", "output directory")
	fs.StringVar(&o.segmentName, "segment-name", "", "segment name (default: <table>_<file name>)")
	fs.BoolVar(&o.tar, "tar", false, "write DIR/<segment>.tar.gz instead of a directory")
	fs.StringVar(&o.timeColumn, "time-column", "", "time column (a DATE_TIME field)")
	fs.StringVar(&o.noDictionary, "no-dictionary", "", "comma-separated raw (no dictionary) columns")
	fs.StringVar(&o.inverted, "inverted", "", "comma-separated columns with a bitmap inverted index")
	fs.StringVar(&o.sorted, "sorted", "", "sorted column (must already be sorted)")
	fs.IntVar(&o.batchRows, "batch-rows", parquet.DefaultBatchRows, "rows per batch read from Parquet")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile to this file")
	o.rename = renameFlag{}
	fs.Var(o.rename, "rename", "PARQUET_NAME=PINOT_NAME: the Pinot name of a Parquet column (repeatable)")
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		if o.input != "" {
			return nil, fmt.Errorf("convert: one input file expected, got %q and %q", o.input, fs.Arg(0))
		}
		o.input, rest = fs.Arg(0), fs.Args()[1:]
	}
	if o.input == "" || o.outDir == "" {
		fs.Usage()
		return nil, errors.New("convert: an input file and -o DIR are required")
	}
	return o, nil
}

func cmdConvert(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseConvertFlags(args, stderr)
	if err != nil {
		return err
	}
	stop, err := cpuprofile.Start(o.cpuProfile)
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	defer stop()
	start := time.Now()
	res, out, err := runConvert(ctx, o, stderr)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(stdout, "segment %s: %d rows, %d columns, %d bytes -> %s (%.2fs, %.0f rows/s)\n",
		res.Name, res.Rows, len(res.Columns), res.Bytes, out, secs, float64(res.Rows)/secs)
	return nil
}

// runConvert builds the segment and returns it and the path written.
func runConvert(ctx context.Context, o *convertOptions, stderr io.Writer) (*segments.Result, string, error) {
	f, err := os.Open(o.input)
	if err != nil {
		return nil, "", fmt.Errorf("convert: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("convert: %w", err)
	}
	schema, columns, err := convertSchema(f, st.Size(), o, stderr)
	if err != nil {
		return nil, "", err
	}
	src, err := parquet.NewSource(ctx, f, st.Size(), parquet.Config{
		Schema: schema, Columns: columns, Name: o.input, BatchRows: o.batchRows})
	if err != nil {
		return nil, "", fmt.Errorf("convert: %w", err)
	}
	defer src.Close()
	cfg := segments.Config{
		Schema: schema, TableName: o.table, SegmentName: o.segmentName, TimeColumn: o.timeColumn,
		NoDictionary: columnList(o.noDictionary), Inverted: columnList(o.inverted), SortedColumn: o.sorted,
	}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return nil, "", fmt.Errorf("convert: create output directory: %w", err)
	}
	if !o.tar {
		res, err := segments.Build(ctx, src, cfg, o.outDir)
		if err != nil {
			return nil, "", fmt.Errorf("convert %s: %w", o.input, err)
		}
		return res, res.Dir, nil
	}
	return buildTar(ctx, src, cfg, o)
}

// buildTar builds in a scratch directory inside DIR and renames the
// finished tarball into place, so a failure leaves nothing behind.
func buildTar(ctx context.Context, src segments.Source, cfg segments.Config, o *convertOptions) (*segments.Result, string, error) {
	tmp, err := os.MkdirTemp(o.outDir, ".floe-convert-")
	if err != nil {
		return nil, "", fmt.Errorf("convert: %w", err)
	}
	defer os.RemoveAll(tmp)
	res, err := segments.Build(ctx, src, cfg, tmp)
	if err != nil {
		return nil, "", fmt.Errorf("convert %s: %w", o.input, err)
	}
	part := filepath.Join(tmp, res.Name+".tar.gz")
	w, err := os.Create(part)
	if err != nil {
		return nil, "", fmt.Errorf("convert: %w", err)
	}
	if err := segments.WriteTarGz(ctx, res.Dir, w); err != nil {
		w.Close()
		return nil, "", fmt.Errorf("convert: write tarball: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, "", fmt.Errorf("convert: write tarball: %w", err)
	}
	out := filepath.Join(o.outDir, res.Name+".tar.gz")
	if err := os.Rename(part, out); err != nil {
		return nil, "", fmt.Errorf("convert: %w", err)
	}
	return res, out, nil
}

// convertSchema loads --schema or infers one, fills defaults for the
// table and segment names, and returns the Pinot → Parquet column bindings
// of --rename. Inference warnings go to stderr.
func convertSchema(r io.ReaderAt, size int64, o *convertOptions, stderr io.Writer) (*spec.Schema, map[string]string, error) {
	var schema *spec.Schema
	columns := map[string]string{}
	for from, to := range o.rename {
		columns[to] = from
	}
	if o.schemaPath != "" {
		b, err := os.ReadFile(o.schemaPath)
		if err != nil {
			return nil, nil, fmt.Errorf("convert: read schema: %w", err)
		}
		schema = &spec.Schema{}
		if err := json.Unmarshal(b, schema); err != nil {
			return nil, nil, fmt.Errorf("convert: parse schema %s: %w", o.schemaPath, err)
		}
		for _, f := range schema.Fields {
			if err := segments.CheckColumnName(f.Name); err != nil {
				return nil, nil, fmt.Errorf("convert: schema %s: column %q: %w; give the Pinot column a valid name and "+
					"bind the Parquet column to it with --rename 'PARQUET NAME=pinot_name'", o.schemaPath, f.Name, err)
			}
		}
	} else {
		if o.table == "" {
			return nil, nil, errors.New("convert: --table is required when --schema is omitted")
		}
		pf, err := parquet.OpenMetadata(r, size)
		if err != nil {
			return nil, nil, fmt.Errorf("convert: file %s: %w", o.input, err)
		}
		inf, err := parquet.InferSchema(pf, o.table, o.timeColumn, o.rename)
		if err != nil {
			return nil, nil, fmt.Errorf("convert: infer schema from %s: %w", o.input, err)
		}
		for _, w := range inf.Skipped {
			fmt.Fprintf(stderr, "warning: %s: skipped %v\n", o.input, w)
		}
		schema = inf.Schema
	}
	if o.table == "" {
		o.table = schema.Name
	}
	if o.segmentName == "" {
		base := strings.TrimSuffix(filepath.Base(o.input), filepath.Ext(o.input))
		o.segmentName = segmentNameChars.ReplaceAllString(o.table+"_"+base, "_")
	}
	return schema, columns, nil
}

var segmentNameChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func columnList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
