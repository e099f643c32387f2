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

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/egress"
	"github.com/floehq/floe/internal/redact"
	"github.com/floehq/floe/metrics"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// app holds the wired components of a floe process.
type app struct {
	cfg     config.Config
	log     *slog.Logger // scrubs every secret the redactor knows
	red     *redact.Redactor
	store   checkpoint.Store
	loader  *catalogLoader
	watcher *watcher.Watcher
	dropper pinot.TableDropper // the sink, for DELETE ?dropPinotTable=true
	metrics *metrics.Registry  // served at /metrics
	notify  *notifier          // webhook and notification queues
}

// configFlag registers -config (default $FLOE_CONFIG).
func configFlag(fs *flag.FlagSet) *string {
	return fs.String("config", os.Getenv("FLOE_CONFIG"), "config file (YAML); FLOE_* variables override it")
}

// newLogger builds the slog logger the config asks for.
func newLogger(cfg config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Level))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// redisLog routes go-redis's own log lines (dial retries) to slog at
// debug level, so that they neither clutter stderr nor hide the one error
// line floe prints.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis client", slog.String("detail", fmt.Sprintf(format, v...)))
}

// openStore opens Redis when configured, else the embedded store.
func openStore(ctx context.Context, cfg config.Config, logger *slog.Logger) (checkpoint.Store, error) {
	if cfg.Store.Redis.URL != "" {
		// go-redis keeps its logger in a package variable; the process
		// sets it once here, at wiring time.
		redis.SetLogger(redisLog{log: logger})
		return checkpoint.NewRedis(ctx, checkpoint.RedisOptions{URL: cfg.Store.Redis.URL, Prefix: cfg.Store.Redis.KeyPrefix})
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Store.Path), 0o755); err != nil {
		return nil, fmt.Errorf("create store directory: %w", err)
	}
	return checkpoint.OpenBolt(cfg.Store.Path)
}

// newUploader returns the controller client (with its retry policy and,
// when configured, the S3 deep store for metadata push), both calling out
// under the egress policy, or the local directory sink when no controller
// is configured.
func newUploader(ctx context.Context, cfg config.Pinot, pol *egress.Policy) (pinot.Uploader, error) {
	if cfg.ControllerURL == "" {
		if err := os.MkdirAll(cfg.SegmentDir, 0o755); err != nil {
			return nil, fmt.Errorf("create segment directory: %w", err)
		}
		sink := pinot.NewLocalDir(cfg.SegmentDir)
		// A process killed while copying a tarball in or publishing a
		// state version left a temporary file; nothing else removes it.
		if _, err := sink.SweepTemps(ctx); err != nil {
			return nil, err
		}
		return sink, nil
	}
	c, err := pinot.NewController(cfg.ControllerURL, cfg.Timeout, cfg.Headers, pinot.WithEgress(pol))
	if err != nil {
		return nil, err
	}
	c.Retry = cfg.Retry
	if ds := cfg.DeepStore; ds.URI != "" {
		store, err := pinot.NewS3DeepStore(ctx, pinot.S3Options{S3Location: ds, Retry: c.Retry, Egress: pol})
		if err != nil {
			return nil, err
		}
		c.DeepStore = store
	}
	return c, nil
}

// newApp wires store, catalogs, Pinot and the watcher. Every log line
// from here on passes the redactor, which knows the configured secrets at
// once and each connection's when it is stored or opened (I7).
func newApp(ctx context.Context, cfg config.Config, logger *slog.Logger, tune ...func(*watcher.Options)) (*app, error) {
	red := redact.New()
	red.Set("config", configSecrets(cfg)...)
	logger = slog.New(redact.NewHandler(logger.Handler(), red))
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	reg := metrics.New()
	if s, ok := store.(interface{ Observe(checkpoint.Observer) }); ok {
		s.Observe(reg)
	}
	up, err := newUploader(ctx, cfg.Pinot, cfg.Security.EgressPolicy())
	if err != nil {
		store.Close()
		return nil, err
	}
	if c, ok := up.(*pinot.Controller); ok {
		c.Observer = reg
	}
	if err := seedConnections(ctx, store, cfg.Connections, logger); err != nil {
		store.Close()
		return nil, err
	}
	if err := learnStoredSecrets(ctx, store, red, logger); err != nil {
		store.Close()
		return nil, err
	}
	loader := newCatalogLoader(store, logger, cfg.Security.Policy(), red)
	wo := watcherOptions(cfg.Watcher)
	for _, f := range tune {
		f(&wo)
	}
	w := watcher.New(watcher.Deps{
		Store: store, Loader: loader, LagLoader: loader, Builder: watcher.IcebergBuilder{}, Uploader: up, Logger: logger,
		Work: workQueue(cfg.Watcher, store), Scrub: red.Scrub, Metrics: reg,
	}, wo)
	dropper, _ := up.(pinot.TableDropper)
	reg.CountTables(w.TableCount)
	n, err := newNotifier(ctx, cfg, store, w, reg, logger)
	if err != nil {
		loader.Close()
		store.Close()
		return nil, err
	}
	return &app{cfg: cfg, log: logger, red: red, store: store, loader: loader, watcher: w, dropper: dropper,
		metrics: reg, notify: n}, nil
}

// watcherOptions maps the watcher's configuration onto its options.
func watcherOptions(c config.Watcher) watcher.Options {
	return watcher.Options{
		Owner: c.Owner, LeaseTTL: c.LeaseTTL, LeaseMargin: c.LeaseMargin, MaxConcurrentRuns: c.MaxConcurrentRuns,
		BuildParallelism: c.BuildParallelism, RefreshInterval: c.RefreshInterval, LagInterval: c.LagInterval,
		DefaultSchedule: c.DefaultSchedule, WorkDir: c.WorkDir, MaxRowsPerSegment: c.MaxRowsPerSegment,
		BatchFiles: c.BatchFiles, BatchBytes: c.BatchBytes, ClaimTimeout: c.ClaimTimeout,
		DeleteCacheBytes: c.DeleteCacheBytes,
		Plan: plan.Options{CoalesceBelowBytes: c.CoalesceBelowBytes, TargetSegmentBytes: c.TargetSegmentBytes,
			MergeSmallUnits: c.MergeSmallUnits, CacheBytes: c.ManifestCacheBytes},
	}
}

// workQueue shares builds through the store when the store has a work
// queue (Redis) and the configuration allows it; the embedded store builds
// on the lease holder only.
func workQueue(c config.Watcher, store checkpoint.Store) checkpoint.WorkQueue {
	q, ok := store.(checkpoint.WorkQueue)
	if !ok || !c.ShareBuilds {
		return nil
	}
	return q
}

// seedConnections stores the connections declared in the config file, so
// tables can refer to them by name. A credential the file writes in props
// is stored as a secret (catalog.Config.MoveCredentials).
func seedConnections(ctx context.Context, store checkpoint.Store, conns map[string]config.Connection, logger *slog.Logger) error {
	for name, c := range conns {
		cfg, moved := catalog.Config{Name: name, Type: c.Type, Props: c.Props, Secrets: c.Secrets}.MoveCredentials()
		if len(moved) > 0 {
			logger.Warn("the configuration writes credentials in props; stored as secrets (write them under secrets)",
				slog.String("connection", name), slog.Any("props", moved))
		}
		err := store.PutConnection(ctx, checkpoint.Connection{Name: name, Type: c.Type, Props: cfg.Props, Secrets: cfg.Secrets})
		if err != nil {
			return fmt.Errorf("store connection %s: %w", name, err)
		}
	}
	return nil
}

// serve starts the API on addr and then the watcher; on failure it closes
// whatever it had started, and the app.
func (a *app) serve(ctx context.Context, addr string) (*api.Server, error) {
	srv := api.New(a.store, a.watcher, a.loader, a.log, version, a.apiOptions())
	a.logAccess(addr)
	if err := srv.Open(addr); err != nil {
		_ = a.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	if err := a.watcher.Open(ctx); err != nil {
		_ = srv.Close(context.WithoutCancel(ctx))
		_ = a.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	if err := a.notify.open(ctx); err != nil {
		_ = srv.Close(context.WithoutCancel(ctx))
		_ = a.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return srv, nil
}

// Close releases everything the app opened.
func (a *app) Close(ctx context.Context) error {
	var errs []error
	if err := a.notify.close(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := a.watcher.Close(ctx); err != nil {
		errs = append(errs, err)
	}
	a.loader.Close()
	if err := a.store.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// loadConfig parses flags' config path and loads the configuration.
func loadConfig(path string) (config.Config, error) {
	return config.Load(path, os.Environ())
}
