package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/redact"
)

// A record stored with credentials in props (by an older floe) is
// rewritten at start-up with them in secrets, and the redactor knows
// them; the configuration file's connections are stored the same way.
// The warnings name the connection and keys, never the values.
func TestLearnStoredSecrets_MovesCredentialsOutOfProps(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	t.Cleanup(func() { _ = store.Close() })
	const pw, tok = "old-record-pw-1a2b3c", "old-record-token-4d5e6f"
	if err := store.PutConnection(ctx, checkpoint.Connection{Name: "old", Type: "sql",
		Props: map[string]string{"uri": "postgres://floe:" + pw + "@db/lake", "token": tok}}); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	if err := seedConnections(ctx, store, map[string]config.Connection{"file": {Type: "rest",
		Props: map[string]string{"uri": "http://catalog:8181", "header.Authorization": "Bearer file-header-7a8b9c"}}}, logger); err != nil {
		t.Fatal(err)
	}
	red := redact.New()
	if err := learnStoredSecrets(ctx, store, red, logger); err != nil {
		t.Fatal(err)
	}
	old, err := store.GetConnection(ctx, "old")
	if err != nil || old.Props["uri"] != "postgres://floe@db/lake" || old.Props["token"] != "" ||
		old.Secrets["password"] != pw || old.Secrets["token"] != tok {
		t.Fatalf("old record after start-up: %+v %v", old, err)
	}
	file, err := store.GetConnection(ctx, "file")
	if err != nil || file.Props["header.Authorization"] != "" || file.Secrets["header.Authorization"] != "Bearer file-header-7a8b9c" {
		t.Fatalf("config connection as stored: %+v %v", file, err)
	}
	if got := red.Scrub("sent " + pw + " and " + tok + " and Bearer file-header-7a8b9c"); strings.Contains(got, pw) ||
		strings.Contains(got, tok) || strings.Contains(got, "file-header-7a8b9c") {
		t.Fatalf("the redactor does not know the moved secrets: %s", got)
	}
	out := logs.String()
	if !strings.Contains(out, "connection=old") || !strings.Contains(out, "connection=file") ||
		strings.Contains(out, pw) || strings.Contains(out, tok) || strings.Contains(out, "file-header") {
		t.Fatalf("warnings: %s", out)
	}
}
