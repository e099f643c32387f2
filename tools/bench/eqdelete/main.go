// Command eqbench measures what a CDC writer's commits cost floe: a
// table of disjoint id ranges per data file (keyed by id), each commit
// appending one file and deleting keys of existing rows by equality. It
// compares floe comparing each delete's keys with the files' key bounds
// (random keys, and recent keys as a monotonic CDC stream deletes) with
// the rule floe had before, every equality delete rebuilding every older
// file of its partition (plan.Options.EqualityDeletesWholePartition).
// With -accumulate it measures CPU per commit step by step as equality
// delete files accumulate, the builder's delete cache against iceberg-go's
// scan reading them per data file (watcher.IcebergBuilder.ScanDeletes).
//
//	eqbench -files 1000 -rows 2000 -commits 5 -dir .cache/bench/eqdelete -report docs/benchmarks.md
//
// scripts/bench-eqdelete.sh drives it; see docs/benchmarks.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/floehq/floe/internal/cpuprofile"
	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/report"
)

func main() { cli.Main(context.Background(), "eqbench", run) }

type options struct {
	files, rows, commits, deletes, perCommit int
	dir, report                              string
	scattered                                bool
	// profile, when set, is where the measured commits' CPU profile goes
	// (with -grow, the runs labelled files=<size>).
	profile string
	// grow lists table sizes in files: the key-bounds contender is
	// measured on a table of each size (runGrowth).
	grow []int
	// sink is the Pinot stand-in: localdir (pinot.LocalDir) or memory.
	sink string
	// accumulate, when above 0, is how many commits runAccumulate
	// measures one by one as equality deletes accumulate.
	accumulate int
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("eqbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.files, "files", 1000, "data files of the table before the measured commits")
	fs.IntVar(&o.rows, "rows", 2000, "rows per data file")
	fs.IntVar(&o.commits, "commits", 5, "measured commits per contender (after one warm-up)")
	fs.IntVar(&o.deletes, "deletes", 100, "keys each commit deletes by equality")
	fs.IntVar(&o.perCommit, "per-commit", 100, "data files per commit while building the table")
	fs.StringVar(&o.dir, "dir", ".cache/bench/eqdelete", "scratch directory (recreated)")
	fs.BoolVar(&o.scattered, "scattered", false, "scatter the keys: every file's ids span the whole range (key index vs bounds)")
	fs.StringVar(&o.report, "report", "", "Markdown file whose eqdelete block is rewritten (empty: print only)")
	fs.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile of the measured commits (the table's commit and the run; "+
		"pprof -focus RunOnce shows the runs) to this file; with -grow the runs are labelled files=<size>")
	fs.StringVar(&o.sink, "sink", "localdir", "Pinot stand-in: localdir (the local-directory sink, which rereads and "+
		"rewrites its whole served list on every write) or memory (served list in memory: floe's own cost)")
	fs.IntVar(&o.accumulate, "accumulate", 0, "measure CPU per commit step by step over this many commits as equality "+
		"delete files accumulate, the builder's delete cache against iceberg-go's scan reading them per data file "+
		"(one table each, commits alternating), instead of the contenders")
	grow := fs.String("grow", "", "table sizes in files, ascending and comma-separated (e.g. 1000,10000): measure "+
		"key bounds and key index on a table of each size, commits alternating between them, instead of the contenders")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if *grow != "" {
		for _, f := range strings.Split(*grow, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2 || (len(o.grow) > 0 && n <= o.grow[len(o.grow)-1]) {
				return o, fmt.Errorf("-grow: %q is not a file count ≥ 2 above the one before", f)
			}
			o.grow = append(o.grow, n)
		}
	}
	if o.sink != "localdir" && o.sink != "memory" {
		return o, fmt.Errorf("-sink: %q is neither localdir nor memory", o.sink)
	}
	if o.accumulate > 0 {
		// Random existing keys only: -deletes may exceed a file's rows.
		if o.files < 2 || o.deletes < 1 || o.perCommit < 1 || 2*o.deletes*o.accumulate > o.files*o.rows {
			return o, errors.New("-files ≥ 2, -deletes ≥ 1, and -accumulate × -deletes at most half the table's rows")
		}
		return o, nil
	}
	if o.files < 2 || o.rows < o.deletes || o.commits < 1 || o.deletes < 1 || o.perCommit < 1 {
		return o, errors.New("-files ≥ 2, -commits ≥ 1, -deletes ≥ 1 and -rows ≥ -deletes")
	}
	return o, nil
}

// contender is one way of planning, with one kind of keys.
type contender struct {
	name    string
	whole   bool // plan.Options.EqualityDeletesWholePartition
	noIndex bool // plan.Options.NoKeyIndex
	recent  bool // keys of the most recent file, else random existing keys
	// scanDeletes: the builder has iceberg-go's scan apply the deletes,
	// per data file (watcher.IcebergBuilder.ScanDeletes).
	scanDeletes bool
}

// contenders are the ways compared on a table of disjoint id ranges, or
// of scattered keys (where bounds rule nothing out).
func contenders(scattered bool) []contender {
	if scattered {
		return []contender{
			{name: "key bounds alone (floe before), random keys", noIndex: true},
			{name: "key bounds and key index, random keys"},
		}
	}
	return []contender{
		{name: "every older file (floe before), random keys", whole: true},
		{name: "key bounds and key index, random keys"},
		{name: "key bounds and key index, recent keys", recent: true},
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(o.dir); err != nil {
		return fmt.Errorf("clean %s: %w", o.dir, err)
	}
	if len(o.grow) > 0 {
		return runGrowth(ctx, o, stdout, stderr)
	}
	if o.accumulate > 0 {
		return runAccumulate(ctx, o, stdout, stderr)
	}
	fmt.Fprintf(stderr, "eqbench: building a table of %d files × %d rows\n", o.files, o.rows)
	c, err := newCDCTable(ctx, filepath.Join(o.dir, "lake"), o.files, o.rows, o.perCommit, o.scattered)
	if err != nil {
		return err
	}
	defer c.Close()
	keys := &keyPicker{rng: rand.New(rand.NewPCG(1, 2)), deleted: map[int64]bool{}, rows: int64(o.rows)}
	var results []result
	for i, ct := range contenders(o.scattered) {
		fmt.Fprintf(stderr, "eqbench: %s: %d commits on %d files\n", ct.name, o.commits, c.files)
		r, err := measure(ctx, o, c, keys, ct, filepath.Join(o.dir, fmt.Sprint("run", i)))
		if err != nil {
			return fmt.Errorf("%s: %w", ct.name, err)
		}
		results = append(results, r)
	}
	return report.Publish(stdout, o.report, reportBlock(o.scattered), renderReport(o, results))
}

// growthContender is the one measured as the table grows.
var growthContender = contender{name: "key bounds and key index, random keys"}

// runGrowth measures the growth contender on one table per size of
// o.grow, the sizes' commits alternating (one commit and run on each
// table in turn), so that the machine's other load falls on every size
// alike. With -cpuprofile the runs are labelled files=<size> (pprof
// -tagfocus files=10000).
func runGrowth(ctx context.Context, o options, stdout, stderr io.Writer) error {
	var ss []*session
	for i, n := range o.grow {
		fmt.Fprintf(stderr, "eqbench: building a table of %d files × %d rows\n", n, o.rows)
		c, err := newCDCTable(ctx, filepath.Join(o.dir, fmt.Sprint("lake", i)), n, o.rows, o.perCommit, false)
		if err != nil {
			return err
		}
		defer c.Close()
		keys := &keyPicker{rng: rand.New(rand.NewPCG(1, uint64(i)+2)), deleted: map[int64]bool{}, rows: int64(o.rows)}
		s, err := newSession(ctx, o, c, keys, growthContender, filepath.Join(o.dir, fmt.Sprint("grow", i)))
		if err != nil {
			return fmt.Errorf("%d files: %w", n, err)
		}
		ss = append(ss, s)
	}
	fmt.Fprintf(stderr, "eqbench: %s: %d commits on each table, alternating\n", growthContender.name, o.commits)
	stop := func() {}
	defer func() { stop() }()
	for i := 0; i <= o.commits; i++ { // the first round warms up
		if i == 1 {
			var err error
			if stop, err = cpuprofile.Start(o.profile); err != nil {
				return err
			}
		}
		for _, s := range ss {
			var err error
			pprof.Do(ctx, pprof.Labels("files", fmt.Sprint(s.r.files)), func(ctx context.Context) {
				err = s.step(ctx, i > 0)
			})
			if err != nil {
				return fmt.Errorf("%d files: %w", s.r.files, err)
			}
		}
	}
	results := make([]result, len(ss))
	for i, s := range ss {
		s.r.mean(o.commits)
		results[i] = s.r
	}
	return report.Publish(stdout, o.report, growthReportBlock(), renderGrowthReport(o, results))
}

// keyPicker picks keys of live rows and remembers what it deleted.
type keyPicker struct {
	rng     *rand.Rand
	deleted map[int64]bool
	rows    int64
}

// pick returns n live keys: among every file's, or the newest file's.
func (k *keyPicker) pick(files int, n int, recent bool) []int64 {
	lo, hi := int64(0), int64(files)*k.rows
	if recent {
		lo = hi - k.rows
	}
	out := make([]int64, 0, n)
	seen := map[int64]bool{}
	for len(out) < n {
		id := lo + k.rng.Int64N(hi-lo)
		if !k.deleted[id] && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// held is the live rows of the files holding keys (file i holds
// [i*rows, (i+1)*rows)) and how many such files there are.
func (k *keyPicker) held(keys []int64) (rows int64, files int) {
	hit := map[int64]bool{}
	for _, id := range keys {
		hit[id/k.rows] = true
	}
	for f := range hit {
		rows += k.rows
		for id := f * k.rows; id < (f+1)*k.rows; id++ {
			if k.deleted[id] {
				rows--
			}
		}
	}
	return rows, len(hit)
}

func (k *keyPicker) remember(keys []int64) {
	for _, id := range keys {
		k.deleted[id] = true
	}
}
