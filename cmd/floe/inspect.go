package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/floehq/floe/segments/read"
)

const inspectUsage = `usage: floe inspect SEGMENT [--rows] [--limit N]

Prints a Pinot segment's metadata and, per column, its type, encoding,
cardinality, min/max and null count. SEGMENT is a segment directory (v1 or
v3) or a .tar.gz, written by floe or by Pinot. --rows prints the rows as JSON
lines instead (null for nulls, BYTES as hex, BIG_DECIMAL as a string).
`

func cmdInspect(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, inspectUsage); fs.PrintDefaults() }
	rows := fs.Bool("rows", false, "print every row as a JSON line")
	limit := fs.Int("limit", -1, "print at most N rows (with --rows)")
	var path string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		if path != "" {
			return fmt.Errorf("inspect: one segment expected, got %q and %q", path, fs.Arg(0))
		}
		path, rest = fs.Arg(0), fs.Args()[1:]
	}
	if path == "" {
		fs.Usage()
		return errors.New("inspect: a segment directory or .tar.gz is required")
	}
	s, err := read.Open(path)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	if *rows {
		err = read.WriteRowsJSON(stdout, s, *limit)
	} else {
		err = read.WriteSummary(stdout, s)
	}
	if err != nil {
		return fmt.Errorf("inspect %s: %w", path, err)
	}
	return nil
}
