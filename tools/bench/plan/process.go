package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// procPlan is how floe's default configuration sizes segments (small
// files coalesced, small units merged): the seed, the processes and the
// warm watcher all plan with it.
var procPlan = plan.Options{CoalesceBelowBytes: 16 << 20, TargetSegmentBytes: 256 << 20, MergeSmallUnits: 8}

// procStat is the median cost of one run as an operator sees it: CPU ms
// and memory KiB (a cold `floe sync` process: its peak RSS; a warm run
// inside a long-lived watcher: the live heap after the run).
type procStat struct{ cpu, mem float64 }

// cWarm names the warm runs in errors.
const cWarm = "run inside serve (warm)"

// procResult is the process figures of one table size: one-file syncs
// cold and warm, and the remap after a compaction when measured.
type procResult struct {
	cold, warm procStat
	compact    *compactStat
}

// measureProcesses measures one-file syncs of the table through the floe
// binary: each `floe sync` is a new process on a Bolt store and a
// local-directory sink (cold: it reads the checkpoint from the store and
// the table's manifests from disk), then the same one-file syncs by one
// long-lived watcher on the same store and sink (warm: what `floe serve`
// pays per run once it has synced the table). With compact, the table is
// then compacted into a hundredth of its files and the remap that follows
// is measured both ways (compact.go).
// profile, when set, names the CPU profiles: the last cold process's
// (.cold.<files>), the warm runs' (.warm.<files>) and the warm remap's
// (.warm.compact.<files>).
func measureProcesses(ctx context.Context, l *lake.Lake, dir, floeBin string, runs int, profile string, compact bool,
	redisURL string) (procResult, error) {
	dir, err := filepath.Abs(dir) // floe's security.localRoots must be absolute
	if err != nil {
		return procResult{}, err
	}
	st := newBenchStore(dir, redisURL, fmt.Sprintf("planbench:%d:%d:", l.Files, time.Now().UnixNano()))
	env, err := seedStore(ctx, l, dir, st)
	if err != nil {
		return procResult{}, err
	}
	var cold []procStat
	for i := 0; i <= runs; i++ { // the first of each is a warm-up
		if err := l.AddFiles(ctx, 1); err != nil {
			return procResult{}, err
		}
		var args []string
		if profile != "" && i == runs { // the last cold process is profiled
			args = []string{"-cpuprofile", fmt.Sprintf("%s.cold.%d", profile, l.Files)}
		}
		c, out, err := syncProcess(ctx, floeBin, env, args...)
		if err != nil {
			return procResult{}, err
		}
		if !strings.Contains(out, ": COMPLETED,") || strings.Contains(out, ", 0 segments") {
			return procResult{}, fmt.Errorf("floe sync did not sync the new file:\n%s", out)
		}
		if i > 0 {
			cold = append(cold, c)
		}
	}
	store, err := st.open(ctx)
	if err != nil {
		return procResult{}, err
	}
	defer store.Close()
	w := warmWatcher(store, lake.Loader{Lake: l}, dir)
	warmProfile := ""
	if profile != "" {
		warmProfile = profile + ".warm"
	}
	stop := startProfile(warmProfile, l.Files)
	warm, err := warmRuns(ctx, l, w, runs)
	stop()
	if err != nil {
		return procResult{}, err
	}
	res := procResult{cold: procMedian(cold), warm: procMedian(warm)}
	if compact {
		c, err := measureCompactionProcesses(ctx, l, w, dir, floeBin, env, warmProfile, runs)
		if err != nil {
			return res, err
		}
		res.compact = &c
	}
	return res, nil
}

// seedStore fills st, the store the floe processes share, in dir (the
// lake's catalog as a connection, the table, and a checkpoint of every
// file, built as placeholders) and returns the processes' environment.
func seedStore(ctx context.Context, l *lake.Lake, dir string, st benchStore) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	store, err := st.open(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	now := time.Now()
	if err := store.PutConnection(ctx, checkpoint.Connection{Name: "bench", Type: "sql", CreatedAt: now, UpdatedAt: now,
		Props: map[string]string{"uri": l.DB, "catalog-name": lake.CatalogName}}); err != nil {
		return nil, err
	}
	if err := store.CreateTable(ctx, checkpoint.Table{Name: seedTable, Connection: "bench", Namespace: "bench",
		Source: "events", SchemaJSON: []byte(seedSchema), TableConfigJSON: []byte(`{"tableName":"events","tableType":"OFFLINE"}`),
		TaskConfig: map[string]string{}}); err != nil {
		return nil, err
	}
	b := &lake.SeedBuilder{}
	b.Seeding.Store(true)
	w := watcher.New(watcher.Deps{Store: store, Loader: lake.Loader{Lake: l}, Builder: b, Uploader: pinot.NewLocalDir(filepath.Join(dir, "segments"))},
		watcher.Options{Owner: "bench-seed", WorkDir: filepath.Join(dir, "work"), BuildParallelism: 2, BatchFiles: 1 << 20,
			Plan: procPlan})
	if _, err := w.RunOnce(ctx, seedTable, "bench", nil); err != nil {
		return nil, fmt.Errorf("seed the checkpoint: %w", err)
	}
	root := filepath.Dir(l.DB)
	return append(append(os.Environ(), st.env()...),
		"FLOE_PINOT_SEGMENTDIR="+filepath.Join(dir, "segments"),
		"FLOE_WATCHER_WORKDIR="+filepath.Join(dir, "work"),
		"FLOE_SECURITY_LOCALROOTS="+root+","+dir,
		"FLOE_LOG_LEVEL=error"), nil
}

// (The processes run with floe's default configuration: a segment
// built of the new file, or of it merged with earlier small units.)

// syncProcess runs one `floe sync` and returns its CPU time and peak RSS.
// It runs under a spawn helper (this program, re-executed): a process
// started directly by the benchmark would report the benchmark's own
// peak RSS, which Linux carries into a child across exec (the child
// shares the parent's memory until it execs), and the benchmark holds a
// large table's catalog and checkpoint.
// It returns the process's output too: the run's line, then the usage.
// args are more flags for floe sync.
func syncProcess(ctx context.Context, floeBin string, env []string, args ...string) (procStat, string, error) {
	self, err := os.Executable()
	if err != nil {
		return procStat{}, "", err
	}
	cmd := exec.CommandContext(ctx, self, append([]string{spawnArg, floeBin, "sync", "-table", seedTable, "-quiet"}, args...)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return procStat{}, out.String(), fmt.Errorf("floe sync: %w\n%s", err, out.String())
	}
	var cpuNs, rssKiB int64
	i := strings.LastIndex(out.String(), spawnReport)
	if i < 0 {
		return procStat{}, out.String(), fmt.Errorf("floe sync: no resource usage:\n%s", out.String())
	}
	if _, err := fmt.Sscanf(out.String()[i:], spawnReport+" %d %d", &cpuNs, &rssKiB); err != nil {
		return procStat{}, out.String(), fmt.Errorf("floe sync: resource usage: %w", err)
	}
	return procStat{cpu: float64(cpuNs) / 1e6, mem: float64(rssKiB)}, out.String(), nil
}

// The spawn helper: `planbench spawn <command> <args>` runs the command
// and reports its CPU time (ns) and peak RSS (KiB) on a last line.
const (
	spawnArg    = "spawn"
	spawnReport = "planbench-rusage"
)

// spawn is the helper's whole work; it returns the exit status.
func spawn(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "spawn: no resource usage")
		return 1
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Fprintf(os.Stderr, "%s %d %d\n", spawnReport, cpu.Nanoseconds(), ru.Maxrss) // Linux: Maxrss in KiB
	if err != nil {
		return 1
	}
	return 0
}

// warmWatcher is the long-lived watcher of the warm runs, on the store
// and sink the processes use, as `floe serve` runs the table.
func warmWatcher(store checkpoint.Store, loader watcher.TableLoader, dir string) *watcher.Watcher {
	return watcher.New(watcher.Deps{Store: store, Loader: loader, Builder: &watcher.IcebergBuilder{},
		Uploader: pinot.NewLocalDir(filepath.Join(dir, "segments"))},
		watcher.Options{Owner: "bench-serve", WorkDir: filepath.Join(dir, "work"), BuildParallelism: 2, BatchFiles: 64,
			Plan: procPlan})
}

// warmRuns syncs one new file at a time with the watcher w, after a first
// run that loads the table (not counted).
func warmRuns(ctx context.Context, l *lake.Lake, w *watcher.Watcher, runs int) ([]procStat, error) {
	var out []procStat
	for i := 0; i <= runs; i++ {
		if err := l.AddFiles(ctx, 1); err != nil {
			return nil, err
		}
		var run checkpoint.Run
		c, err := measure(func() error {
			var err error
			run, err = w.RunOnce(ctx, seedTable, "bench", nil)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cWarm, err)
		}
		if run.SegmentsGenerated < 1 {
			return nil, fmt.Errorf("%s built no segment for the new file", cWarm)
		}
		if i > 0 {
			out = append(out, procStat{cpu: float64(c.cpu.Microseconds()) / 1e3, mem: liveHeapKiB()})
		}
	}
	return out, nil
}

// liveHeapKiB is the heap the process holds after a collection.
func liveHeapKiB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / 1024
}

func procMedian(ps []procStat) procStat {
	cpu := make([]float64, len(ps))
	mem := make([]float64, len(ps))
	for i, p := range ps {
		cpu[i], mem[i] = p.cpu, p.mem
	}
	slices.Sort(cpu)
	slices.Sort(mem)
	return procStat{cpu: cpu[len(cpu)/2], mem: mem[len(mem)/2]}
}
