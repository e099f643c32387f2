// Command planbench measures the cost of planning a one-file sync as a
// table grows: the incremental fold with a warm manifest cache (a running
// replica) and a cold one (just restarted), the full-state diff, and
// iceberg-go's own scan planning (what every run did before the fold).
//
//	planbench -files 10,1000,10000 -runs 15 -dir .cache/bench/plan -report docs/benchmarks.md
//
// scripts/bench-plan.sh drives it; see docs/benchmarks.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/floehq/floe/internal/cpuprofile"
	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/tools/bench/report"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == spawnArg {
		os.Exit(spawn(os.Args[2:]))
	}
	cli.Main(context.Background(), "planbench", run)
}

type options struct {
	sizes    []int
	runs     int
	perBatch int
	dir      string
	report   string
	profile  string
	// floe is the floe binary the process measurements run ("": none);
	// processOnly skips the in-process planner and run measurements.
	floe        string
	processOnly bool
	// compact also measures, after the process runs, the remap that
	// follows a compaction of the table (cold process and warm run);
	// compactOnly publishes only those figures (it implies processOnly).
	compact, compactOnly bool
	// manifestPerFile builds each table one manifest per data file
	// (lake.BuildManifestPerFile) and publishes the process figures into
	// their own block (manifests.go); it implies processOnly and no
	// compaction.
	manifestPerFile bool
	// redis, when set, is the Redis server the processes keep their
	// checkpoints in (-manifest-per-file only).
	redis string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("planbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	sizes := fs.String("files", "10,1000,10000", "table sizes in data files, comma-separated")
	fs.IntVar(&o.runs, "runs", 15, "one-file syncs measured per table size")
	fs.IntVar(&o.perBatch, "per-commit", 100, "data files added per commit while building a table (so 10,000 files make 100 manifests)")
	fs.StringVar(&o.dir, "dir", ".cache/bench/plan", "scratch directory for the tables (recreated)")
	fs.StringVar(&o.report, "report", "", "Markdown file whose plan-benchmark block is rewritten (empty: print only)")
	fs.StringVar(&o.profile, "cpuprofile", "", "write CPU profiles of the whole runs to this file (.<files>), of the warm runs (.warm.<files>) and of the last cold floe sync process (.cold.<files>)")
	fs.StringVar(&o.floe, "floe", "", "floe binary: also measure one-file syncs as whole `floe sync` processes (cold) and warm runs")
	fs.BoolVar(&o.processOnly, "process-only", false, "measure only the floe processes and warm runs (needs -floe)")
	fs.BoolVar(&o.compact, "compact", true, "with -floe: then compact each table into a hundredth of its files and measure the remap as a floe sync process and a warm run")
	fs.BoolVar(&o.compactOnly, "compact-only", false, "publish only the compaction figures (needs -floe; implies -process-only and -compact)")
	fs.BoolVar(&o.manifestPerFile, "manifest-per-file", false, "build each table one manifest per data file, its history expired to the last "+
		"few snapshots (a writer committing one file per commit, never merging manifests), and publish the processes' figures "+
		"into their own block (needs -floe; implies -process-only and -compact=false)")
	fs.StringVar(&o.redis, "redis", "", "with -manifest-per-file: keep the processes' checkpoints in this Redis server (redis://host:port), "+
		"each table size under a key prefix of its own, instead of an embedded store, and publish into a block of its own")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-files: %q is not a positive count", s)
		}
		o.sizes = append(o.sizes, n)
	}
	if o.runs < 1 || o.perBatch < 1 {
		return o, errors.New("-runs and -per-commit must be positive")
	}
	if o.compactOnly {
		o.processOnly, o.compact = true, true
	}
	if o.manifestPerFile {
		if o.compactOnly {
			return o, errors.New("-manifest-per-file and -compact-only exclude each other")
		}
		o.processOnly, o.compact = true, false
	}
	if o.redis != "" && !o.manifestPerFile {
		return o, errors.New("-redis needs -manifest-per-file")
	}
	if o.processOnly && o.floe == "" {
		return o, errors.New("-process-only, -compact-only and -manifest-per-file need -floe")
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
	var results []result
	for _, n := range o.sizes {
		fmt.Fprintf(stderr, "planbench: building a table of %d data files\n", n)
		lk, err := buildLake(ctx, o, n)
		if err != nil {
			return err
		}
		res, err := measureSize(ctx, o, lk, n, stderr)
		lk.Close()
		if err != nil {
			return err
		}
		results = append(results, res)
	}
	if !o.processOnly {
		if err := report.Publish(stdout, o.report, reportBlock(), renderReport(o, results)); err != nil {
			return err
		}
	}
	if o.floe == "" {
		return nil
	}
	if o.manifestPerFile {
		return report.Publish(stdout, o.report, manifestsReportBlock(o), renderManifestsReport(o, results))
	}
	if !o.compactOnly {
		if err := report.Publish(stdout, o.report, procReportBlock(), renderProcessReport(o, results)); err != nil {
			return err
		}
	}
	if !o.compact {
		return nil
	}
	return report.Publish(stdout, o.report, compactReportBlock(), renderCompactReport(o, results))
}

// measureSize measures one table size: the planner (unless processOnly),
// the floe processes and warm runs (with -floe), then the in-process runs
// (unless processOnly; they end with a compaction of the table unless the
// processes measured one).
func measureSize(ctx context.Context, o options, lk *lake.Lake, n int, stderr io.Writer) (result, error) {
	res := result{files: lk.Files}
	if !o.processOnly {
		fmt.Fprintf(stderr, "planbench: %d one-file syncs on %d files\n", o.runs, n)
		var err error
		if res, err = measureSyncs(ctx, lk, o.runs); err != nil {
			return res, err
		}
	}
	if o.floe != "" {
		fmt.Fprintf(stderr, "planbench: %d floe sync processes and warm runs on %d files\n", o.runs, lk.Files)
		res.procFiles = lk.Files
		procs, err := measureProcesses(ctx, lk, filepath.Join(o.dir, fmt.Sprint(n), "procs"), o.floe, o.runs, o.profile, o.compact,
			o.redis)
		if err != nil {
			return res, err
		}
		res.cold, res.warm, res.compact = procs.cold, procs.warm, procs.compact
		if o.manifestPerFile {
			if res.manifests, err = listedManifests(ctx, lk); err != nil {
				return res, err
			}
		}
	}
	if o.processOnly {
		return res, nil
	}
	fmt.Fprintf(stderr, "planbench: %d whole runs on %d files\n", o.runs, lk.Files)
	stopProfile := startProfile(o.profile, n)
	// The processes compacted the table already when they measured the
	// remap (-compact): the in-process runs then measure no compaction.
	runs, err := measureRuns(ctx, lk, filepath.Join(o.dir, fmt.Sprint(n), "runs"), o.runs, !o.compact || o.floe == "")
	stopProfile()
	if err != nil {
		return res, err
	}
	res.runSync, res.runNoop, res.runCompact = runs[cRunSync], runs[cRunNoop], runs[cRunCompact]
	return res, nil
}

// startProfile profiles the whole runs of the table of n files into
// path.n when path is set; the returned func stops it. A profile that
// cannot be written is left out (the measurement goes on).
func startProfile(path string, n int) func() {
	if path == "" {
		return func() {}
	}
	stop, err := cpuprofile.Start(fmt.Sprintf("%s.%d", path, n))
	if err != nil {
		return func() {}
	}
	return stop
}
