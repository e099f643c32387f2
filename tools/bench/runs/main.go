// Command runbench measures how floe's runs behave on large tables:
//
//   - backfill: a first sync of a table of many files in one process, with
//     the work directory's size sampled all along (local disk holds only
//     the units being built, whatever the table's size);
//
//   - replicas: the same backfill by one `floe serve` replica and by
//     three sharing one Redis (work shared through the work queue), wall
//     time side by side;
//
//   - overwrite: an overwrite of every file of a synced table in one
//     process, the work directory sampled while the replacing run streams
//     its units into one open replacement (-only overwrite runs it alone:
//     it needs neither Redis nor the floe binary).
//
//     runbench -floe bin/floe -files 200 -rows 50000 -dir .cache/bench/runs -report docs/benchmarks.md
//
// scripts/bench-runs.sh drives it; see docs/benchmarks.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/report"
)

func main() { cli.Main(context.Background(), "runbench", run) }

type options struct {
	floe         string
	files, rows  int
	replicaFiles int
	batchFiles   int
	dir, report  string
	redisServer  string
	parallelism  int
	only         string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("runbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.floe, "floe", "bin/floe", "the floe binary (replica scaling)")
	fs.IntVar(&o.files, "files", 200, "data files of the backfilled table")
	fs.IntVar(&o.rows, "rows", 50_000, "rows per data file")
	fs.IntVar(&o.replicaFiles, "replica-files", 72, "data files of the table the replicas backfill")
	fs.IntVar(&o.batchFiles, "batch-files", 16, "watcher.batchFiles")
	fs.IntVar(&o.parallelism, "parallelism", 1, "watcher.buildParallelism of each replica in the scaling run")
	fs.StringVar(&o.dir, "dir", ".cache/bench/runs", "scratch directory (recreated)")
	fs.StringVar(&o.report, "report", "", "Markdown file whose runs block is rewritten (empty: print only)")
	fs.StringVar(&o.redisServer, "redis-server", "redis-server", "the redis-server binary")
	fs.StringVar(&o.only, "only", "", `run one measurement: "overwrite" (empty: all)`)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	abs, err := filepath.Abs(o.floe)
	if err != nil {
		return o, fmt.Errorf("-floe: %w", err)
	}
	o.floe = abs
	// The replicas run in their own directories: every path they are
	// given must be absolute.
	if o.dir, err = filepath.Abs(o.dir); err != nil {
		return o, fmt.Errorf("-dir: %w", err)
	}
	if o.only != "" && o.only != "overwrite" {
		return o, fmt.Errorf("-only %q: want overwrite or nothing", o.only)
	}
	if o.files < 1 || o.rows < 1 || o.replicaFiles < 1 || o.batchFiles < 1 || o.parallelism < 1 {
		return o, errors.New("-files, -rows, -replica-files, -batch-files and -parallelism must be positive")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(o.dir); err != nil {
		return fmt.Errorf("clean %s: %w", o.dir, err)
	}
	fmt.Fprintf(stderr, "runbench: overwrite of %d files of %d rows\n", o.files, o.rows)
	ow, err := measureOverwrite(ctx, o)
	if err != nil {
		return err
	}
	if err := report.Publish(stdout, o.report, overwriteBlock(), renderOverwrite(o, ow)); err != nil {
		return err
	}
	if o.only == "overwrite" {
		return nil
	}
	fmt.Fprintf(stderr, "runbench: backfill of %d files of %d rows\n", o.files, o.rows)
	bf, err := measureBackfill(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "runbench: %d files by 1 and by 3 replicas\n", o.replicaFiles)
	rs, err := measureReplicas(ctx, o, stderr)
	if err != nil {
		return err
	}
	block := renderReport(o, bf, rs)
	return report.Publish(stdout, o.report, reportBlock(), block)
}
