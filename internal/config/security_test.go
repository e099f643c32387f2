package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/internal/config"
)

const tok1, tok2 = "admin-token-0123456789", "read-token-0123456789"

func TestLoad_SecuritySettings(t *testing.T) {
	tokFile := filepath.Join(t.TempDir(), "read")
	if err := os.WriteFile(tokFile, []byte(tok2+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	p := writeFile(t, `
server:
  addr: 0.0.0.0:8080
  adminTokens: ["${env:ADMIN}"]
  readTokens: ["${file:`+tokFile+`}"]
  allowedOrigins: [https://floe.example]
  allowedHosts: [floe.internal, "*.example"]
  readTimeout: 5s
security:
  localRoots: [`+root+`]
  secretEnv: [LAKE_*]
watcher:
  minScheduleInterval: 1m
connections:
  lake:
    type: rest
    props: {uri: "https://x"}
    secrets: {token: "${env:LAKE_TOKEN}", credential: "${file:/run/secrets/c}"}
`)
	cfg, err := config.Load(p, []string{"ADMIN=" + tok1, "LAKE_TOKEN=never-read-here", "FLOE_SERVER_MAXCATALOGCALLS=2"})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Server
	if !slices.Equal(s.AdminTokens, []string{tok1}) || !slices.Equal(s.ReadTokens, []string{tok2}) || !s.HasTokens() {
		t.Fatalf("tokens not resolved: %d admin, %d read", len(s.AdminTokens), len(s.ReadTokens))
	}
	if s.ReadTimeout != 5*time.Second || s.MaxCatalogCalls != 2 || cfg.Watcher.MinScheduleInterval != time.Minute ||
		!slices.Equal(cfg.Security.LocalRoots, []string{root}) || !slices.Equal(s.AllowedHosts, []string{"floe.internal", "*.example"}) {
		t.Fatalf("settings not read: %+v %+v", s, cfg.Security)
	}
	// Connection secret references stay references: they are read when used.
	if sec := cfg.Connections["lake"].Secrets; sec["token"] != "${env:LAKE_TOKEN}" || sec["credential"] != "${file:/run/secrets/c}" {
		t.Fatalf("secret references were expanded at load: %v", sec)
	}
	env, err := config.Load("", []string{"FLOE_SERVER_ADMINTOKENS=" + tok1 + "," + tok2, "FLOE_SERVER_ADDR=0.0.0.0:1"})
	if err != nil || len(env.Server.AdminTokens) != 2 {
		t.Fatalf("tokens from the environment: %v %v", env.Server.AdminTokens, err)
	}
}

func TestLoad_SecurityErrors(t *testing.T) {
	cases := []struct {
		name, file string
		env        []string
		field      string
	}{
		{"open non-loopback", "server:\n  addr: 0.0.0.0:8080\n", nil, "server.addr"},
		{"open all interfaces", "server:\n  addr: ':8080'\n", nil, "server.addr"},
		{"short token", "server:\n  adminTokens: [short]\n", nil, "server.adminTokens[0]"},
		{"token twice", "server:\n  adminTokens: [" + tok1 + "]\n  readTokens: [" + tok1 + "]\n", nil, "server.readTokens[0]"},
		{"token env unset", "server:\n  adminTokens: ['${env:NOPE}']\n", nil, "server.adminTokens[0]"},
		{"bad origin", "server:\n  allowedOrigins: [evil.example/path]\n", nil, "server.allowedOrigins[0]"},
		{"bad host", "server:\n  allowedHosts: ['host:80']\n", nil, "server.allowedHosts[0]"},
		{"zero timeout", "server:\n  readTimeout: 0s\n", nil, "server.readTimeout"},
		{"root slash", "security:\n  localRoots: [/]\n", nil, "security.localRoots[0]"},
		{"root etc", "security:\n  localRoots: [/etc]\n", nil, "security.localRoots[0]"},
		{"root proc", "security:\n  secretFileRoots: [/proc/1]\n", nil, "security.secretFileRoots[0]"},
		{"root relative", "security:\n  localRoots: [data]\n", nil, "security.localRoots[0]"},
		{"secretEnv star", "security:\n  secretEnv: ['*']\n", nil, "security.secretEnv[0]"},
		{"zero minimum", "", []string{"FLOE_WATCHER_MINSCHEDULEINTERVAL=0s"}, "watcher.minScheduleInterval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(writeFile(t, tc.file), tc.env)
			if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("err %v, want one naming %s", err, tc.field)
			}
			if strings.Contains(err.Error(), tok1) {
				t.Fatalf("error echoes a token: %v", err)
			}
		})
	}
	if _, err := config.Load(writeFile(t, "server:\n  addr: 0.0.0.0:8080\n  insecure: true\n"), nil); err != nil {
		t.Fatalf("insecure: true allows an open non-loopback address: %v", err)
	}
}
