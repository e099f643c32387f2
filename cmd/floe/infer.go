package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/internal/redact"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

// repeated is a flag that may be given many times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type inferFlags struct {
	cfgPath, connection, metadata, table, name, timeColumn, schedule string
	noTimeColumn                                                     bool
	overrides, flatten                                               repeated
}

func parseInferFlags(args []string, stderr io.Writer) (inferFlags, error) {
	var f inferFlags
	fs := flag.NewFlagSet("infer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := configFlag(fs)
	fs.StringVar(&f.connection, "connection", "", "connection NAME (from the config) to load -table through")
	fs.StringVar(&f.metadata, "metadata", "", "read the table from this Iceberg metadata.json (path or URI) instead of a connection")
	fs.StringVar(&f.table, "table", "", "the Iceberg table `NS.TABLE` (backticks quote odd names: sales.`order-lines`)")
	fs.StringVar(&f.name, "name", "", "Pinot raw table name (default: derived from -table)")
	fs.StringVar(&f.timeColumn, "time-column", "", "time column (default: proposed from the timestamp/date columns)")
	fs.BoolVar(&f.noTimeColumn, "no-time-column", false, "generate a table without a time column")
	fs.StringVar(&f.schedule, "schedule", schema.DefaultSchedule, "sync schedule written to the task config")
	fs.Var(&f.overrides, "override", "col=KIND[,KIND] with KIND a field type (DIMENSION, METRIC, DATE_TIME[:UNIT]) or data type (e.g. LONG); repeatable")
	fs.Var(&f.flatten, "flatten", "struct column to flatten into col.child columns; repeatable")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	f.cfgPath = *cfgPath
	switch {
	case f.table == "":
		return f, errors.New("infer: -table is required")
	case (f.connection == "") == (f.metadata == ""):
		return f, errors.New("infer: give exactly one of -connection and -metadata")
	}
	return f, nil
}

// cmdInfer prints the Pinot schema and OFFLINE table config floe infers for
// an Iceberg table, as one JSON object {"schema":…, "tableConfig":…}; notes
// on lossy and multi-value columns go to stderr.
func cmdInfer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseInferFlags(args, stderr)
	if err != nil {
		return err
	}
	tn, err := schema.ParseTableIdent(f.table)
	if err != nil {
		return fmt.Errorf("infer: %w", err)
	}
	opts, err := inferOptions(f, tn)
	if err != nil {
		return fmt.Errorf("infer: %w", err)
	}
	sch, err := loadIcebergSchema(ctx, f, tn, stderr)
	if err != nil {
		return fmt.Errorf("infer %s: %w", tn, err)
	}
	res, err := schema.Infer(sch, opts)
	if err != nil {
		return fmt.Errorf("infer %s: %w", tn, err)
	}
	tc := schema.TableConfig(res, schema.TableOptions{Schedule: f.schedule, Source: tn, Connection: f.connection})
	printInferNotes(stderr, res)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Schema      *spec.Schema      `json:"schema"`
		TableConfig *spec.TableConfig `json:"tableConfig"`
	}{res.Schema, tc})
}

func inferOptions(f inferFlags, tn schema.TableName) (schema.Options, error) {
	ov, err := schema.ParseOverrides(f.overrides)
	if err != nil {
		return schema.Options{}, err
	}
	for _, col := range f.flatten {
		o := ov[col]
		o.Flatten = true
		ov[col] = o
	}
	name := f.name
	if name == "" {
		name = tn.PinotName()
	}
	return schema.Options{Name: name, Overrides: ov, TimeColumn: f.timeColumn, NoTimeColumn: f.noTimeColumn}, nil
}

// loadIcebergSchema reads the table's current schema, from a metadata file
// or through a configured connection.
func loadIcebergSchema(ctx context.Context, f inferFlags, tn schema.TableName, stderr io.Writer) (*iceberg.Schema, error) {
	if f.metadata != "" {
		tbl, err := table.NewFromLocation(ctx, tn.Ident(), f.metadata, iceio.LoadFSFunc(nil, f.metadata), nil)
		if err != nil {
			return nil, fmt.Errorf("load metadata %s: %w", f.metadata, err)
		}
		return tbl.Schema(), nil
	}
	cfg, err := loadConfig(f.cfgPath)
	if err != nil {
		return nil, err
	}
	red := redact.New()
	red.Set("config", configSecrets(cfg)...)
	logger := slog.New(redact.NewHandler(newLogger(cfg.Log, stderr).Handler(), red))
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := seedConnections(ctx, store, cfg.Connections, logger); err != nil {
		return nil, err
	}
	loader := newCatalogLoader(store, logger, cfg.Security.Policy(), red)
	defer loader.Close()
	cat, err := loader.catalogFor(ctx, f.connection)
	if err != nil {
		return nil, scrubErr(red, err)
	}
	tbl, err := cat.LoadTable(ctx, catalog.TableIdent{Namespace: tn.Namespace, Name: tn.Table})
	if err != nil {
		return nil, scrubErr(red, err)
	}
	return tbl.Iceberg.Schema(), nil
}

func printInferNotes(w io.Writer, res *schema.Result) {
	if res.TimeColumn != "" {
		fmt.Fprintf(w, "time column: %s (change with -time-column or -no-time-column)\n", res.TimeColumn)
	}
	for _, c := range res.Columns {
		if c.Lossy != "" {
			fmt.Fprintf(w, "note: column %s (%s → %s): %s\n", c.Field.Name, c.Type, c.Field.DataType, c.Lossy)
		}
	}
	if len(res.MultiValue) > 0 {
		fmt.Fprintf(w, "multi-value columns: %s\n", strings.Join(res.MultiValue, ", "))
	}
}
