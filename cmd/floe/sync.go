package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/floehq/floe/checkpoint"
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
	stopProgress := progress(ctx, *tableName, stderr)
	run, err := a.watcher.RunOnce(ctx, *tableName, "cli")
	stopProgress()
	printRun(stdout, run)
	return err
}

func printRun(w io.Writer, r checkpoint.Run) {
	fmt.Fprintf(w, "run %s: %s, snapshot %d, files %d, segments %d (+%d replaced), rows %d, %.1fs\n",
		r.ID, r.Status, r.SnapshotID, r.FilesDiscovered, r.SegmentsGenerated, r.SegmentsDeleted, r.Rows,
		r.FinishedAt.Sub(r.StartedAt).Seconds())
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
}

// progress shows a spinner with elapsed time on a terminal while the run
// is in flight; it prints nothing when stderr is not a terminal.
func progress(ctx context.Context, table string, w io.Writer) func() {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		frames := `|/-\`
		start := time.Now()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				fmt.Fprintf(w, "\r%c syncing %s  %s", frames[i%len(frames)], table, time.Since(start).Round(time.Second))
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// isTerminal reports whether f is a character device.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
