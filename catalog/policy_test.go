package catalog_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

func sqlConfig(uri string, secrets map[string]string) catalog.Config {
	return catalog.Config{Name: "c", Type: catalog.TypeSQL, Props: map[string]string{"uri": uri}, Secrets: secrets}
}

func hadoopConfig(wh string) catalog.Config {
	return catalog.Config{Name: "c", Type: catalog.TypeHadoop, Props: map[string]string{"warehouse": wh}}
}

// Local catalog files are opt-in: only under the allowed roots, never
// under the system directories, whatever symlinks say.
func TestPolicy_CheckLocalFiles(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	link := filepath.Join(root, "etc-link")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	p := catalog.Policy{LocalRoots: []string{root, "/", "/etc"}}
	ok := []catalog.Config{
		sqlConfig(filepath.Join(root, "catalog.db"), nil),
		sqlConfig("file:"+filepath.Join(root, "catalog.db")+"?mode=ro", nil),
		sqlConfig(":memory:", nil),
		sqlConfig("postgres://floe@db.example/lake", nil),
		hadoopConfig("file://" + filepath.Join(root, "wh")),
		hadoopConfig(filepath.Join(root, "wh")),
		hadoopConfig("s3://bucket/wh"),
	}
	for _, cfg := range ok {
		if err := p.Check(cfg); err != nil {
			t.Errorf("Check(%v): %v", cfg.Props, err)
		}
	}
	bad := []struct {
		cfg  catalog.Config
		want []string
	}{
		{hadoopConfig("file:///etc"), []string{"connections.c.props.warehouse", "/etc", "never reads"}},
		{hadoopConfig("/proc/self"), []string{"connections.c.props.warehouse", "/proc"}},
		{hadoopConfig("file:///sys/kernel"), []string{"/sys"}},
		{hadoopConfig("file:///"), []string{"/"}},
		{hadoopConfig("file://" + filepath.Join(link, "ssl")), []string{"/etc"}},
		{sqlConfig(filepath.Join(outside, "x.db"), nil), []string{"connections.c.props.uri", "outside the allowed directories", "security.localRoots"}},
		{sqlConfig(filepath.Join(root, "..", filepath.Base(outside), "x.db"), nil), []string{"outside"}},
		{sqlConfig("file:///etc/passwd", nil), []string{"connections.c.props.uri", "/etc"}},
		{catalog.Config{Name: "c", Type: catalog.TypeSQL, Props: map[string]string{"uri": "/etc/x.db", "dialect": "postgres", "driver": "sqlite"}},
			[]string{"/etc"}},
	}
	for _, tc := range bad {
		err := p.Check(tc.cfg)
		if !errors.Is(err, catalog.ErrInvalidConfig) {
			t.Errorf("Check(%v) = %v, want ErrInvalidConfig", tc.cfg.Props, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Check(%v) = %q, want it to name %q", tc.cfg.Props, err, w)
			}
		}
	}
	if err := (catalog.Policy{}).Check(sqlConfig(filepath.Join(root, "c.db"), nil)); err == nil ||
		!strings.Contains(err.Error(), "no local directory is allowed") {
		t.Errorf("no roots: %v", err)
	}
}

func TestCheckRoot(t *testing.T) {
	for _, dir := range []string{"/", "/etc", "/etc/floe", "/proc", "/sys/x", "relative/dir"} {
		if err := catalog.CheckRoot(dir); err == nil {
			t.Errorf("CheckRoot(%q) = nil, want an error", dir)
		}
	}
	for _, dir := range []string{"/data/lake", "/var/lib/floe", "/etcetera"} {
		if err := catalog.CheckRoot(dir); err != nil {
			t.Errorf("CheckRoot(%q) = %v", dir, err)
		}
	}
}

// Secrets may be references, read at use time only when allowed.
func TestPolicy_ResolveSecretRefs(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("file-secret-1234\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"LAKE_TOKEN": "env-secret-5678", "FLOE_S_PW": "pw-9"}
	p := catalog.Policy{SecretEnv: []string{"LAKE_TOKEN", "FLOE_S_*"}, SecretFileRoots: []string{dir},
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	cfg := catalog.Config{Name: "c", Type: catalog.TypeREST, Props: map[string]string{"uri": "http://x"},
		Secrets: map[string]string{"token": "${env:LAKE_TOKEN}", "credential": "${file:" + tokenFile + "}", "password": "${env:FLOE_S_PW}", "plain": "v"}}
	got, err := p.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"token": "env-secret-5678", "credential": "file-secret-1234", "password": "pw-9", "plain": "v"}
	for k, v := range want {
		if got.Secrets[k] != v {
			t.Errorf("secret %s = %q, want %q", k, got.Secrets[k], v)
		}
	}
	if cfg.Secrets["token"] != "${env:LAKE_TOKEN}" {
		t.Error("Resolve changed its argument")
	}
	bad := []struct {
		ref  string
		want string
	}{
		{"${env:HOME}", "security.secretEnv"},
		{"${env:NOT SET}", "not an environment variable name"},
		{"${env:FLOE_S_MISSING}", "not set"},
		{"${file:/etc/shadow}", "/etc"},
		{"${file:relative}", "absolute"},
		{"${file:" + filepath.Join(dir, "missing") + "}", "no such file"},
		{"${file:" + t.TempDir() + "/x}", "security.secretFileRoots"},
		{"${vault:x}", "unknown secret reference"},
	}
	for _, tc := range bad {
		c := cfg
		c.Secrets = map[string]string{"token": tc.ref}
		_, err := p.Resolve(c)
		if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "connections.c.secrets.token") ||
			!strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%s) = %v, want a field error naming %q", tc.ref, err, tc.want)
		}
	}
	// An unresolved reference is never used as a secret.
	c := cfg
	c.Secrets = map[string]string{"token": "${env:LAKE_TOKEN}"}
	if _, err := catalog.Open(t.Context(), c, discard()); err == nil || !strings.Contains(err.Error(), "not resolved") {
		t.Errorf("Open with a reference: %v", err)
	}
}

// Opening a catalog never creates a file, and something that is not a
// catalog is ErrBadCatalog naming the path.
func TestOpen_NeverCreatesFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte(strings.Repeat("not a database ", 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("create table x(a int)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	missing := filepath.Join(dir, "missing.db")
	for _, cfg := range []catalog.Config{sqlConfig(missing, nil), sqlConfig(dir, nil), sqlConfig(text, nil),
		hadoopConfig("file://" + filepath.Join(dir, "nowhere")), hadoopConfig(text)} {
		_, err := catalog.Open(t.Context(), cfg, discard())
		if !errors.Is(err, catalog.ErrBadCatalog) {
			t.Errorf("Open(%v) = %v, want ErrBadCatalog", cfg.Props, err)
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("opening a missing sqlite catalog created it: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("opening a missing warehouse created it: %v", err)
	}
	cat, err := catalog.Open(t.Context(), sqlConfig(other, nil), discard())
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	rep := cat.Validate(t.Context())
	if rep.OK || !strings.Contains(rep.Steps[0].Error, catalog.ErrBadCatalog.Error()) {
		t.Fatalf("a database without catalog tables: %+v", rep)
	}
}
