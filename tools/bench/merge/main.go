// Command mergebench measures what merging small segments across runs
// costs and saves: a writer adds one small data file per snapshot and a
// watcher syncs after each, once with merges off and once with them on
// (watcher.mergeSmallUnits), side by side in one process. It reports the
// segments Pinot serves at the end, the rows built per row added (the
// merges' re-reading) and the CPU time of the runs.
//
//	mergebench -runs 200 -rows 2000 -dir .cache/bench/merge -report docs/benchmarks.md
//
// scripts/bench-merge.sh drives it; see docs/benchmarks.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/tools/bench/report"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

func main() { cli.Main(context.Background(), "mergebench", run) }

type options struct {
	runs, rows, merge int
	dir, report       string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("mergebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.runs, "runs", 200, "snapshots of one small file, each synced by a run")
	fs.IntVar(&o.rows, "rows", 2000, "rows per data file")
	fs.IntVar(&o.merge, "merge-small-units", 8, "watcher.mergeSmallUnits of the contender with merges on")
	fs.StringVar(&o.dir, "dir", ".cache/bench/merge", "scratch directory (recreated)")
	fs.StringVar(&o.report, "report", "", "Markdown file whose merge-benchmark block is rewritten (empty: print only)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.runs < 1 || o.rows < 1 || o.merge < 2 {
		return o, errors.New("-runs and -rows must be positive, -merge-small-units at least 2")
	}
	return o, nil
}

// result is one contender's outcome.
type result struct {
	name      string
	segments  int
	rowsBuilt int64
	rowsAdded int64
	merges    int
	cpu       time.Duration
	runCPU    []time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(o.dir); err != nil {
		return fmt.Errorf("clean %s: %w", o.dir, err)
	}
	var results []result
	for _, c := range []struct {
		name  string
		merge int
	}{{"merges off", 0}, {fmt.Sprintf("merges at %d small units", o.merge), o.merge}} {
		fmt.Fprintf(stderr, "mergebench: %s, %d runs\n", c.name, o.runs)
		res, err := stream(ctx, o, filepath.Join(o.dir, fmt.Sprint(c.merge)), c.merge)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		res.name = c.name
		results = append(results, res)
	}
	block := render(o, results)
	return report.Publish(stdout, o.report, reportBlock(), block)
}

// stream syncs a table once, then o.runs times after a snapshot of one
// new file each, into a local segment directory.
func stream(ctx context.Context, o options, dir string, merge int) (result, error) {
	var res result
	l, err := lake.Build(ctx, dir, 1, 1, o.rows)
	if err != nil {
		return res, err
	}
	defer l.Close()
	store := checkpoint.NewMemory()
	if err := store.CreateTable(ctx, checkpoint.Table{Name: "events", Connection: "bench", Namespace: "bench", Source: "events",
		SchemaJSON:      []byte(`{"schemaName":"events","dimensionFieldSpecs":[{"name":"id","dataType":"LONG"},{"name":"v","dataType":"STRING"}]}`),
		TableConfigJSON: []byte(`{"tableName":"events","tableType":"OFFLINE"}`)}); err != nil {
		return res, err
	}
	sink := pinot.NewLocalDir(filepath.Join(dir, "pinot"))
	w := watcher.New(watcher.Deps{Store: store, Loader: lake.Loader{Lake: l}, Builder: watcher.IcebergBuilder{}, Uploader: sink,
		Planner: plan.New(plan.Options{CoalesceBelowBytes: 16 << 20, TargetSegmentBytes: 256 << 20, MergeSmallUnits: merge})},
		watcher.Options{Owner: "bench", WorkDir: filepath.Join(dir, "work"), BuildParallelism: 2})
	if _, err := w.RunOnce(ctx, "events", "bench", nil); err != nil {
		return res, err
	}
	for range o.runs {
		if err := l.AddFiles(ctx, 1); err != nil {
			return res, err
		}
		cpu0 := cli.CPUTime()
		r, err := w.RunOnce(ctx, "events", "bench", nil)
		if err != nil {
			return res, err
		}
		if r.Status != checkpoint.RunCompleted {
			return res, fmt.Errorf("run %s: %s %s", r.ID, r.Status, r.Error)
		}
		res.runCPU = append(res.runCPU, cli.CPUTime()-cpu0)
		res.rowsBuilt += r.Rows
		res.rowsAdded += int64(o.rows)
		if r.SegmentsDeleted > 0 {
			res.merges++
		}
	}
	for _, c := range res.runCPU {
		res.cpu += c
	}
	names, err := sink.ListSegments(ctx, "events")
	if err != nil {
		return res, err
	}
	res.segments = len(names)
	return res, nil
}

// reportBlock is the benchmark's block of the report.
func reportBlock() report.Block {
	return report.Block{
		Begin: "<!-- bench-merge:begin -->",
		End:   "<!-- bench-merge:end -->",
		Section: "## Merging small segments across runs\n\n" +
			"`make bench-merge` (scripts/bench-merge.sh → `tools/bench/merge`): a writer adds one small data file per " +
			"snapshot and a watcher (memory store, local segment directory, the real segment builder) syncs after each " +
			"snapshot, with `watcher.mergeSmallUnits` off and on, one after the other in one process.",
	}
}

func render(o options, rs []result) string {
	var b []byte
	b = fmt.Appendf(b, "%s\nLast run: %s, %d runs of one %d-row file each, %s.\n\n", reportBlock().Begin,
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), o.runs, o.rows, runtime.Version())
	b = append(b, "| contender | segments served | merging runs | rows built per row added | CPU s, all runs | run CPU ms, median | run CPU ms, max |\n|---|---:|---:|---:|---:|---:|---:|\n"...)
	for _, r := range rs {
		b = fmt.Appendf(b, "| %s | %d | %d | %.2f | %.2f | %.1f | %.1f |\n", r.name, r.segments, r.merges,
			float64(r.rowsBuilt)/float64(r.rowsAdded), r.cpu.Seconds(), ms(quantile(r.runCPU, 0.5)), ms(slices.Max(r.runCPU)))
	}
	if len(rs) == 2 && rs[1].segments > 0 && rs[0].cpu > 0 {
		b = fmt.Appendf(b, "\nMerges on against off: **%.1f×** fewer segments, **%.2f×** the CPU time of the runs.\n",
			float64(rs[0].segments)/float64(rs[1].segments), rs[1].cpu.Seconds()/rs[0].cpu.Seconds())
	}
	b = append(b, reportBlock().End+"\n"...)
	return string(b)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
