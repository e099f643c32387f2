package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/floehq/floe/api"
)

func cmdServe(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := configFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	logger := newLogger(cfg.Log, stderr)
	a, err := newApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	srv, err := a.serve(ctx, cfg.Server.Addr)
	if err != nil {
		return err
	}
	a.log.Info("floe serving", slog.String("addr", "http://"+srv.Addr()), slog.String("version", version))
	<-ctx.Done()
	return shutdown(a, srv, a.log)
}

// closeTimeout bounds what shutdown does after the drain grace.
const closeTimeout = 8 * time.Second

// shutdown drains (readiness goes false, no new run, runs in flight get
// watcher.drainGrace, leases released, run records flushed), then stops
// the API and the watcher, within a deadline.
func shutdown(a *app, srv *api.Server, logger *slog.Logger) error {
	grace := a.cfg.Watcher.DrainGrace
	logger.Info("floe stopping: draining", slog.Duration("grace", grace))
	ctx, cancel := context.WithTimeout(context.Background(), grace+closeTimeout)
	defer cancel()
	srv.Drain()
	if err := a.watcher.Drain(ctx, grace); err != nil {
		logger.Error("drain", slog.String("error", err.Error()))
	}
	if err := srv.Close(ctx); err != nil {
		logger.Error("stop api", slog.String("error", err.Error()))
	}
	if err := a.Close(ctx); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}
