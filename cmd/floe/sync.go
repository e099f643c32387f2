package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

func cmdSync(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := configFlag(fs)
	tableName := fs.String("table", "", "external table to sync (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tableName == "" {
		return fmt.Errorf("sync: -table is required")
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, newLogger(cfg.Log, stderr))
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	var onProgress watcher.Progress
	bar := newProgressBar(stderr, *tableName)
	if bar != nil {
		onProgress = bar.update
	}
	run, err := a.watcher.RunOnce(ctx, *tableName, "cli", onProgress)
	if bar != nil {
		bar.finish()
	}
	run.Error = a.red.Scrub(run.Error)
	printRun(stdout, run)
	return scrubErr(a.red, err)
}

func printRun(w io.Writer, r checkpoint.Run) {
	fmt.Fprintf(w, "run %s: %s, snapshot %d, files %d, segments %d (+%d replaced), rows %d, %.1fs\n",
		r.ID, r.Status, r.SnapshotID, r.FilesDiscovered, r.SegmentsGenerated, r.SegmentsDeleted, r.Rows,
		r.FinishedAt.Sub(r.StartedAt).Seconds())
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
}

// progressBar draws "[#####.....] 5/10 files 12s" on a terminal while the
// run is in flight; it returns nil (no progress) when w is not a terminal.
type progressBar struct {
	w     io.Writer
	table string
	start time.Time
	mu    sync.Mutex
}

func newProgressBar(w io.Writer, table string) *progressBar {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return nil
	}
	return &progressBar{w: w, table: table, start: time.Now()}
}

// update redraws the bar.
func (p *progressBar) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	const width = 30
	filled := width
	if total > 0 {
		filled = width * done / total
	}
	fmt.Fprintf(p.w, "\r\033[Ksync %s [%s%s] %d/%d files %s", p.table, strings.Repeat("#", filled),
		strings.Repeat(".", width-filled), done, total, time.Since(p.start).Round(time.Second))
}

// finish clears the bar's line.
func (p *progressBar) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
}

// isTerminal reports whether f is a character device.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
