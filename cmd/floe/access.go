package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/egress"
	"github.com/floehq/floe/internal/redact"
)

// configSecrets lists every secret value the configuration holds: API
// tokens, Pinot headers, deep-store keys, the Redis password and the plain
// secrets of the connections it declares.
func configSecrets(cfg config.Config) []string {
	out := append(append([]string(nil), cfg.Server.AdminTokens...), cfg.Server.ReadTokens...)
	for _, v := range cfg.Pinot.Headers {
		out = append(out, v)
	}
	ds := cfg.Pinot.DeepStore
	out = append(out, ds.AccessKeyID, ds.SecretAccessKey, ds.SessionToken)
	if u, err := url.Parse(cfg.Store.Redis.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
	}
	for name, c := range cfg.Connections {
		out = append(out, catalog.Config{Name: name, Props: c.Props, Secrets: c.Secrets}.SecretValues()...)
	}
	return append(out, notifySecrets(cfg)...)
}

// learnStoredSecrets tells the redactor the secrets of every stored
// connection, so that even an error about one not yet opened is clean. A
// record written before the one secret model, with credentials in props,
// is rewritten with them moved to secrets.
func learnStoredSecrets(ctx context.Context, store checkpoint.Store, red *redact.Redactor, logger *slog.Logger) error {
	conns, err := store.ListConnections(ctx)
	if err != nil {
		return fmt.Errorf("read connections: %w", err)
	}
	for _, c := range conns {
		cfg := catalog.Config{Name: c.Name, Type: c.Type, Props: c.Props, Secrets: c.Secrets}
		red.Set("stored/"+c.Name, cfg.SecretValues()...)
		moved, keys := cfg.MoveCredentials()
		if len(keys) == 0 {
			continue
		}
		c.Props, c.Secrets = moved.Props, moved.Secrets
		if err := store.PutConnection(ctx, c); err != nil {
			return fmt.Errorf("move credentials of connection %s to its secrets: %w", c.Name, err)
		}
		logger.Warn("moved credentials from props to secrets", slog.String("connection", c.Name),
			slog.Any("props", keys))
	}
	return nil
}

// apiOptions turns the configuration into the API's access rules.
func (a *app) apiOptions() api.Options {
	s := a.cfg.Server
	return api.Options{
		AdminTokens: s.AdminTokens, ReadTokens: s.ReadTokens, ProtectMetrics: s.ProtectMetrics, Insecure: s.Insecure,
		AllowedOrigins: s.AllowedOrigins, AllowedHosts: s.AllowedHosts,
		ReadTimeout: s.ReadTimeout, WriteTimeout: s.WriteTimeout, IdleTimeout: s.IdleTimeout,
		MaxBodyBytes: s.MaxBodyBytes, MaxCatalogCalls: s.MaxCatalogCalls, StoreTimeout: s.StoreTimeout,
		StoreName: storeName(a.cfg.Store), MinScheduleInterval: a.cfg.Watcher.MinScheduleInterval,
		Policy: a.cfg.Security.Policy(), Redactor: a.red, Pinot: a.dropper, Metrics: a.metrics.Handler(),
		Notifier: a.notify.hub,
		Build:    build(),
	}
}

// storeName names the checkpoint store in 503 answers (never a password).
func storeName(s config.Store) string {
	if s.Redis.URL != "" {
		if u, err := url.Parse(s.Redis.URL); err == nil {
			return "checkpoint store redis at " + u.Host
		}
		return "checkpoint store redis"
	}
	path, err := filepath.Abs(s.Path)
	if err != nil {
		path = s.Path
	}
	return "embedded checkpoint store " + path
}

// logAccess says at start-up who may use the API.
func (a *app) logAccess(addr string) {
	s := a.cfg.Server
	switch {
	case s.HasTokens():
		a.log.Info("api asks for a bearer token", slog.Int("admin_tokens", len(s.AdminTokens)),
			slog.Int("read_tokens", len(s.ReadTokens)), slog.Bool("metrics_protected", s.ProtectMetrics))
	case s.Insecure && !egress.IsLoopbackAddr(addr):
		a.log.Warn("api is open to anyone who reaches "+addr+": no token is set and server.insecure is true",
			slog.String("addr", addr))
	default:
		a.log.Warn("api has no token: serving loopback addresses only; set server.adminTokens to serve others",
			slog.String("addr", addr))
	}
}

// scrubErr returns err with every secret the redactor knows removed, for
// commands that print their error (the type is lost: callers only print it).
func scrubErr(red *redact.Redactor, err error) error {
	if err == nil {
		return nil
	}
	if msg := red.Scrub(err.Error()); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}
