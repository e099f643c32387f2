// Command tablebench measures the table overview API at scale: a real
// redis-server holding many tables (each with a checkpoint, run history
// and an observation), a watcher that knows them all, and the API served
// over loopback HTTP. It times GET /api/v1/tables?pageSize=100 (cached
// table list), the same page right after a table changed (every table
// record read again), a page that filters and sorts on overview fields
// (every table's overview read), GET /api/v1/summary, and, for the ratio,
// the reads the listing made before it was batched (every table, one
// store round trip after another).
//
//	tablebench -tables 1000 -requests 200 -report docs/benchmarks.md
//
// scripts/bench-tables.sh drives it; see docs/benchmarks.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/report"
)

func main() { cli.Main(context.Background(), "tablebench", run) }

type options struct {
	tables, requests, oldRequests int
	runsPerTable                  int
	redisServer, dir, report      string
	cpuProfile                    string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("tablebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.tables, "tables", 1000, "registered tables")
	fs.IntVar(&o.runsPerTable, "runs", 20, "runs in each table's history")
	fs.IntVar(&o.requests, "requests", 200, "timed requests per endpoint")
	fs.IntVar(&o.oldRequests, "old-requests", 15, "timed repetitions of the per-table read path")
	fs.StringVar(&o.redisServer, "redis-server", "redis-server", "the redis-server binary")
	fs.StringVar(&o.dir, "dir", ".cache/bench/tables", "scratch directory (recreated)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed requests here")
	fs.StringVar(&o.report, "report", "", "Markdown file whose tables block is rewritten (empty: print only)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.tables < 1 || o.requests < 1 || o.oldRequests < 1 || o.runsPerTable < 1 {
		return o, errors.New("-tables, -runs, -requests and -old-requests must be positive")
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
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", o.dir, err)
	}
	url, stopRedis, err := startRedis(ctx, o)
	if err != nil {
		return err
	}
	defer stopRedis()
	fmt.Fprintf(stderr, "tablebench: %d tables with %d runs each on %s\n", o.tables, o.runsPerTable, url)
	res, err := measure(ctx, o, url, stderr)
	if err != nil {
		return err
	}
	block := renderReport(o, res)
	return report.Publish(stdout, o.report, reportBlock(), block)
}
