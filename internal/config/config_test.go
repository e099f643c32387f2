package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/internal/config"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "floe.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad_Defaults(t *testing.T) {
	cfg, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Addr != "127.0.0.1:8080" || cfg.Store.Redis.URL != "" || cfg.Watcher.DefaultSchedule != "*/5 * * * *" ||
		cfg.Watcher.DeleteCacheBytes != 64<<20 {
		t.Fatalf("unexpected defaults: %+v", cfg)
	}
}

func TestLoad_FileEnvAndExpansion(t *testing.T) {
	p := writeFile(t, `
server:
  addr: 127.0.0.1:9999
store:
  redis:
    url: ${REDIS}
watcher:
  leaseTTL: 30s
connections:
  lake:
    type: sql
    props: {uri: "file:cat.db"}
`)
	cfg, err := config.Load(p, []string{"REDIS=redis://127.0.0.1:6390/0", "FLOE_WATCHER_MAXCONCURRENTRUNS=7"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Addr != "127.0.0.1:9999" || cfg.Store.Redis.URL != "redis://127.0.0.1:6390/0" {
		t.Fatalf("file values not applied: %+v", cfg)
	}
	if cfg.Watcher.LeaseTTL != 30*time.Second || cfg.Watcher.MaxConcurrentRuns != 7 {
		t.Fatalf("durations/env not applied: %+v", cfg.Watcher)
	}
	if cfg.Connections["lake"].Props["uri"] != "file:cat.db" {
		t.Fatalf("connections not read: %+v", cfg.Connections)
	}
}

func TestLoad_Errors(t *testing.T) {
	cases := []struct {
		name, file string
		env        []string
		wantField  string
	}{
		{"bad redis url", "store:\n  redis:\n    url: http://x:1\n", nil, "store.redis.url"},
		{"redis url without host", "store:\n  redis:\n    url: 'redis://'\n", nil, "store.redis.url"},
		{"bad addr", "server:\n  addr: nope\n", nil, "server.addr"},
		{"bad level", "log:\n  level: loud\n", nil, "log.level"},
		{"zero runs", "watcher:\n  maxConcurrentRuns: 0\n", nil, "watcher.maxConcurrentRuns"},
		{"merge of one unit", "watcher:\n  mergeSmallUnits: 1\n", nil, "watcher.mergeSmallUnits"},
		{"no delete cache", "watcher:\n  deleteCacheBytes: 0\n", nil, "watcher.deleteCacheBytes"},
		{"connection without type", "connections:\n  lake: {}\n", nil, "connections.lake.type"},
		{"bad env duration", "", []string{"FLOE_WATCHER_LEASETTL=soon"}, "watcher.leaseTTL"},
		{"unknown env", "", []string{"FLOE_SERVER_ADR=1"}, "FLOE_SERVER_ADR"},
		{"unknown yaml key", "server:\n  adress: x\n", nil, "adress"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(writeFile(t, tc.file), tc.env)
			if err == nil {
				t.Fatal("want error")
			}
			if !strings.Contains(err.Error(), tc.wantField) {
				t.Fatalf("error %q does not name %q", err, tc.wantField)
			}
		})
	}
}

func TestLoad_ErrorHidesPassword(t *testing.T) {
	_, err := config.Load(writeFile(t, "store:\n  redis:\n    url: 'ftp://user:hunter2@host:1'\n"), nil)
	if err == nil || !errors.Is(err, config.ErrInvalid) {
		t.Fatalf("want ErrInvalid, got %v", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error leaks the password: %v", err)
	}
}

func TestLoad_ExampleFile(t *testing.T) {
	cfg, err := config.Load("../../etc/floe.yaml", []string{"EXTERNAL_ID=x"})
	if err != nil {
		t.Fatalf("the commented example must load: %v", err)
	}
	def := config.Default()
	// %v prints a nil and an empty list alike.
	if fmt.Sprintf("%v %v", cfg.Server, cfg.Security) != fmt.Sprintf("%v %v", def.Server, def.Security) || cfg.Watcher.DefaultSchedule != def.Watcher.DefaultSchedule || cfg.Store.Path != def.Store.Path {
		t.Fatalf("example file drifted from the defaults: %+v", cfg)
	}
}

func TestLoad_TypeErrorNamesField(t *testing.T) {
	_, err := config.Load(writeFile(t, "server:\n  addr: 127.0.0.1:1\nwatcher:\n  leaseTTL: soon\n  maxConcurrentRuns: many\n"), nil)
	if err == nil || !errors.Is(err, config.ErrInvalid) {
		t.Fatalf("want ErrInvalid, got %v", err)
	}
	for _, want := range []string{"watcher.leaseTTL (line 4)", "watcher.maxConcurrentRuns (line 5)"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%q does not name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error must be one line: %q", err)
	}
}
