package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Off a terminal `floe sync` writes its progress as plain lines on
// stderr (files done of total, rows), ending with the whole run; -quiet
// writes none.
func TestSync_Progress(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	lake, err := openDemoLake(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lake.Close()
	if _, err := lake.appendRows(ctx, 100); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FLOE_STORE_PATH", filepath.Join(dir, "floe.db"))
	t.Setenv("FLOE_PINOT_SEGMENTDIR", filepath.Join(dir, "segments"))
	t.Setenv("FLOE_WATCHER_WORKDIR", filepath.Join(dir, "work"))
	t.Setenv("FLOE_SECURITY_LOCALROOTS", dir)
	t.Setenv("FLOE_LOG_LEVEL", "error")
	cfg, err := loadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(ctx, cfg, newLogger(cfg.Log, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	err = registerDemo(ctx, a, demoOptions{dataDir: dir, schedule: "@hourly"})
	if cerr := a.Close(ctx); err != nil || cerr != nil {
		t.Fatalf("register the demo table: %v, close: %v", err, cerr)
	}

	var out, errOut bytes.Buffer
	if err := dispatch(ctx, []string{"sync", "-table", demoTable}, &out, &errOut); err != nil {
		t.Fatalf("sync: %v\n%s", err, errOut.String())
	}
	lines := regexp.MustCompile(`(?m)^sync demo_events: (\d+)/(\d+) files, (\d+) rows, \d+s$`).FindAllStringSubmatch(errOut.String(), -1)
	if len(lines) == 0 {
		t.Fatalf("no progress lines on stderr:\n%s", errOut.String())
	}
	if last := lines[len(lines)-1]; last[1] != last[2] || last[3] != "100" {
		t.Fatalf("last progress line %q: want every file done and 100 rows", last[0])
	}
	if !strings.Contains(out.String(), ": COMPLETED,") || !strings.Contains(out.String(), " append: 1 file added, 0 rebuilt, 0 removed of 1 live; 100 rows added, 0 rebuilt;") {
		t.Fatalf("sync result: %s", out.String())
	}

	if _, err := lake.appendRows(ctx, 10); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if err := dispatch(ctx, []string{"sync", "-table", demoTable, "-quiet"}, &out, &errOut); err != nil {
		t.Fatalf("sync -quiet: %v\n%s", err, errOut.String())
	}
	if strings.Contains(errOut.String(), "files,") || !strings.Contains(out.String(), " append: 1 file added, 0 rebuilt, 0 removed of 2 live; 10 rows added,") {
		t.Fatalf("sync -quiet: stderr %q, stdout %q", errOut.String(), out.String())
	}
}
