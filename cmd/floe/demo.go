package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/schema"
)

// demoOptions are the demo's flags.
type demoOptions struct {
	dataDir  string
	addr     string
	interval time.Duration
	rows     int
	schedule string
}

// cmdDemo runs floe end to end with no configuration: a sample Iceberg
// table in a local SQL catalog, the embedded store, segments written to a
// local directory, the API and status page, and a new snapshot every
// -interval so incremental syncs can be watched.
func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o demoOptions
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := configFlag(fs)
	fs.StringVar(&o.dataDir, "data", "floe-data", "directory for the demo's catalog, warehouse, store and segments")
	fs.StringVar(&o.addr, "addr", "", "API and status page address (default: the config's server.addr, 127.0.0.1:8080)")
	fs.DurationVar(&o.interval, "interval", 30*time.Second, "how often a new snapshot is appended (0: never)")
	fs.IntVar(&o.rows, "rows", 1000, "rows per appended snapshot")
	fs.StringVar(&o.schedule, "schedule", "*/5 * * * * ?", "sync schedule of the demo table (Quartz or cron)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := demoConfig(*cfgPath, o)
	if err != nil {
		return err
	}
	logger := newLogger(cfg.Log, stderr)
	return runDemo(ctx, cfg, o, logger, stdout)
}

// demoConfig is the configuration serve would read (-config or
// FLOE_CONFIG, then FLOE_* variables) with the demo's own choices where
// that configuration leaves the default: its data directory for the store,
// segments and work, quick refreshes, and -addr when given.
func demoConfig(path string, o demoOptions) (config.Config, error) {
	cfg, err := config.LoadUnvalidated(path, os.Environ())
	if err != nil {
		return cfg, err
	}
	def := config.Default()
	if o.addr != "" {
		cfg.Server.Addr = o.addr
	}
	if cfg.Store.Path == def.Store.Path {
		cfg.Store.Path = filepath.Join(o.dataDir, "floe.db")
	}
	if cfg.Pinot.SegmentDir == def.Pinot.SegmentDir {
		cfg.Pinot.SegmentDir = filepath.Join(o.dataDir, "segments")
	}
	if cfg.Watcher.WorkDir == def.Watcher.WorkDir {
		cfg.Watcher.WorkDir = filepath.Join(o.dataDir, "work")
	}
	if cfg.Watcher.RefreshInterval == def.Watcher.RefreshInterval {
		cfg.Watcher.RefreshInterval = 5 * time.Second
	}
	if cfg.Watcher.MinScheduleInterval == def.Watcher.MinScheduleInterval {
		cfg.Watcher.MinScheduleInterval = time.Second
	}
	return cfg, cfg.Validate()
}

func runDemo(ctx context.Context, cfg config.Config, o demoOptions, logger *slog.Logger, stdout io.Writer) error {
	// The demo's catalog lives in its data directory: the one local root
	// it allows.
	dataDir, err := filepath.Abs(o.dataDir)
	if err != nil {
		return fmt.Errorf("demo data directory: %w", err)
	}
	cfg.Security.LocalRoots = append(cfg.Security.LocalRoots, dataDir)
	// The demo is a local playground: connections added in its wizard may
	// call catalogs and emulators on this machine.
	cfg.Security.Egress.Allow = append(cfg.Security.Egress.Allow, loopbackEgress()...)
	lake, err := openDemoLake(ctx, o.dataDir)
	if err != nil {
		return err
	}
	defer lake.Close()
	if lake.next == 0 {
		if _, err := lake.appendRows(ctx, o.rows); err != nil {
			return err
		}
	}
	a, err := newApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	if err := registerDemo(ctx, a, o); err != nil {
		_ = a.Close(context.Background())
		return err
	}
	srv, err := a.serve(ctx, cfg.Server.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w; choose another address: floe demo -addr 127.0.0.1:PORT (make demo ADDR=127.0.0.1:PORT)", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "floe demo: status page http://%s/  API http://%s/api/v1/tables/%s\n", srv.Addr(), srv.Addr(), demoTable)
	fmt.Fprintf(stdout, "floe demo: segments in %s; a new snapshot every %s; Ctrl-C stops\n", cfg.Pinot.SegmentDir, o.interval)
	appendLoop(ctx, lake, o, a.log)
	return shutdown(a, srv, a.log)
}

const demoTable = "demo_events"

// loopbackEgress is what the demo (and the tests, whose peers all listen
// on loopback) lets connections call: this machine.
func loopbackEgress() []string { return []string{"127.0.0.0/8", "::1"} }

// registerDemo stores the demo connection and creates the external table
// (first run at once) unless it exists already.
func registerDemo(ctx context.Context, a *app, o demoOptions) error {
	catalogPath, err := filepath.Abs(filepath.Join(o.dataDir, "catalog.db"))
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	conn := checkpoint.Connection{Name: "demo", Type: "sql", CreatedAt: now, UpdatedAt: now,
		Props: map[string]string{"uri": catalogPath, "catalog-name": demoCatalogName}}
	if old, err := a.store.GetConnection(ctx, "demo"); err == nil {
		conn.CreatedAt, conn.UpdatedAt = old.CreatedAt, old.UpdatedAt
	}
	if err := a.store.PutConnection(ctx, conn); err != nil {
		return fmt.Errorf("store demo connection: %w", err)
	}
	if _, err := a.store.GetTable(ctx, demoTable); err == nil {
		return nil
	} else if !errors.Is(err, checkpoint.ErrNotFound) {
		return err
	}
	res, err := schema.Infer(demoIcebergSchema(), schema.Options{Name: demoTable})
	if err != nil {
		return err
	}
	tc := schema.TableConfig(res, schema.TableOptions{Schedule: o.schedule, Connection: "demo"})
	t, err := api.ExternalTable(demoTable, "demo", "demo", "events", res.Schema, tc)
	if err != nil {
		return err
	}
	return a.watcher.AddTable(ctx, t)
}

// appendLoop appends a snapshot every interval until ctx ends.
func appendLoop(ctx context.Context, lake *demoLake, o demoOptions, logger *slog.Logger) {
	if o.interval <= 0 {
		<-ctx.Done()
		return
	}
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			id, err := lake.appendRows(ctx, o.rows)
			if err != nil {
				if ctx.Err() == nil {
					logger.Error("demo append failed", slog.String("error", err.Error()))
				}
				continue
			}
			logger.Info("demo appended a snapshot", slog.Int64("snapshot_id", id), slog.Int("rows", o.rows))
		}
	}
}
