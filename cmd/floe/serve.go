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

// shutdown stops the API, then the watcher, within a deadline.
func shutdown(a *app, srv *api.Server, logger *slog.Logger) error {
	logger.Info("floe stopping")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		logger.Error("stop api", slog.String("error", err.Error()))
	}
	if err := a.Close(ctx); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}
