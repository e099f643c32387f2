package catalog_test

import (
	"bytes"
	"database/sql"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floehq/floe/catalog"
)

// The peer is real: a MySQL client that allows local files hands it the
// file it asks for. (The driver is linked into floe by a library; floe
// itself never uses it.)
func TestMySQLPeer_TakesALocalFileFromAnUnguardedClient(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "floe.db")
	if err := os.WriteFile(secret, []byte("the bytes of a local file"), 0o600); err != nil {
		t.Fatal(err)
	}
	peer := startMySQLPeer(t, secret)
	db, err := sql.Open("mysql", "u@tcp("+peer.addr+")/x?allowAllFiles=true")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, _ = db.ExecContext(t.Context(), "SELECT 1")
	if n, got := peer.stats(); n == 0 || !bytes.Equal(got, []byte("the bytes of a local file")) {
		t.Fatalf("peer accepted %d connections and received %q: the test peer does not work", n, got)
	}
}

// Drivers are an allow-list: a mysql connection is refused naming the
// driver before anything is dialled, so the peer gets no connection and
// no file.
func TestOpen_RefusesMySQL(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "floe.db")
	if err := os.WriteFile(secret, []byte("never sent"), 0o600); err != nil {
		t.Fatal(err)
	}
	peer := startMySQLPeer(t, secret)
	for _, props := range []map[string]string{
		{"driver": "mysql", "uri": "u@tcp(" + peer.addr + ")/x?allowAllFiles=true"},
		{"driver": "mysql", "dialect": "mysql", "uri": "u@tcp(" + peer.addr + ")/x"},
		{"driver": "mysql", "dialect": "sqlite", "uri": "u@tcp(" + peer.addr + ")/x?allowAllFiles=true"},
		{"driver": "mysql", "dialect": "postgres", "uri": "u@tcp(" + peer.addr + ")/x?allowAllFiles=true"},
		{"driver": "sqlite3", "uri": "u@tcp(" + peer.addr + ")/x"},
		{"driver": "pgx", "dialect": "sqlite", "uri": "postgres://u@" + peer.addr + "/x"},
	} {
		cfg := catalog.Config{Name: "rogue", Type: catalog.TypeSQL, Props: props}
		err := cfg.Validate()
		field := "connections.rogue.props.driver"
		if props["dialect"] == "mysql" {
			field = "connections.rogue.props.dialect"
		}
		if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate(%v) = %v, want an error naming %s", props, err, field)
		}
		if _, err := catalog.Open(t.Context(), cfg, discard()); !errors.Is(err, catalog.ErrInvalidConfig) {
			t.Errorf("Open(%v) = %v, want ErrInvalidConfig", props, err)
		}
	}
	if n, got := peer.stats(); n != 0 || len(got) != 0 {
		t.Fatalf("the MySQL peer got %d connections and %q", n, got)
	}
}

// countingListener accepts TCP connections and counts them.
func countingListener(t *testing.T) (addr string, accepted *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), accepted
}

// Every Postgres option that makes the driver read a local file, in both
// connection-string forms, is refused naming the option, and nothing is
// dialled; the same connection without it reaches the server.
func TestValidate_PostgresFileOptions(t *testing.T) {
	addr, accepted := countingListener(t)
	host, port, _ := net.SplitHostPort(addr)
	local := filepath.Join(t.TempDir(), "key.pem")
	cases := map[string]string{}
	for _, opt := range []string{"sslkey", "sslcert", "sslrootcert", "sslcrl", "sslcrldir", "sslpassword", "passfile", "servicefile"} {
		cases[opt+" (URL)"] = "postgres://floe@" + addr + "/lake?sslmode=disable&" + opt + "=" + local
		cases[opt+" (key=value)"] = "host=" + host + " port=" + port + " user=floe " + opt + "='" + local + "'"
		cases[strings.ToUpper(opt)+" (URL)"] = "postgres://floe@" + addr + "/lake?" + strings.ToUpper(opt) + "=" + local
	}
	cases["service (URL)"] = "postgres://floe@" + addr + "/lake?service=lake"
	cases["service (key=value)"] = "host=" + host + " service=lake"
	cases["host (URL)"] = "postgres://floe@/lake?host=/var/run/postgresql"
	cases["host (key=value)"] = "host=/var/run/postgresql user=floe"
	for name, dsn := range cases {
		opt, _, _ := strings.Cut(name, " ")
		cfg := catalog.Config{Name: "pg", Type: catalog.TypeSQL, Props: map[string]string{"uri": dsn, "dialect": "postgres"}}
		err := cfg.Validate()
		if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "connections.pg.props.uri: option "+opt) {
			t.Errorf("%s: Validate = %v, want props.uri naming option %s", name, err, opt)
		}
		if _, err := catalog.Open(t.Context(), cfg, discard()); !errors.Is(err, catalog.ErrInvalidConfig) {
			t.Errorf("%s: Open = %v, want ErrInvalidConfig", name, err)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("refused connections dialled the server %d times", n)
	}
	// The listener counts: the same connection without a refused option
	// does reach it.
	ok := catalog.Config{Name: "pg", Type: catalog.TypeSQL, Props: map[string]string{
		"uri": "postgres://floe@" + addr + "/lake?sslmode=disable&connect_timeout=5&application_name=floe"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate(plain) = %v", err)
	}
	_, _ = catalog.Open(t.Context(), ok, discard())
	if accepted.Load() == 0 {
		t.Fatal("a plain postgres connection did not reach the listener")
	}
}

// sqlite takes only a short list of options: no vfs, no mode that creates
// files, no pragma beyond busy_timeout and query_only (a pragma is SQL the
// driver runs on open), so no ATTACH or extension smuggled in.
func TestValidate_SQLiteOptions(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	refused := map[string]string{
		"vfs":            db + "?vfs=unix-dotfile",
		"cache":          "file:" + db + "?cache=shared",
		"nolock":         db + "?nolock=1",
		"mode=rwc":       "file:" + db + "?mode=rwc",
		"mode=memory":    "file:" + db + "?mode=memory",
		"_pragma attach": db + "?_pragma=busy_timeout(1);ATTACH DATABASE '/etc/passwd' AS x",
		"_pragma":        db + "?_pragma=journal_mode(WAL)",
		"_pragma ext":    db + "?_pragma=load_extension('/tmp/x.so')",
		"_pragma key":    db + "?_pragma=key='x'",
		"unknown":        db + "?_loc=auto&whatever=1",
	}
	for name, dsn := range refused {
		cfg := catalog.Config{Name: "lite", Type: catalog.TypeSQL, Props: map[string]string{"uri": dsn}}
		err := cfg.Validate()
		if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "connections.lite.props.uri: option ") {
			t.Errorf("%s: Validate(%s) = %v, want props.uri naming the option", name, dsn, err)
		}
	}
	for _, dsn := range []string{db, "file:" + db + "?mode=ro", db + "?_pragma=busy_timeout(5000)&_pragma=query_only(1)",
		"file:" + db + "?immutable=1&_txlock=deferred"} {
		cfg := catalog.Config{Name: "lite", Type: catalog.TypeSQL, Props: map[string]string{"uri": dsn}}
		if err := cfg.Validate(); err != nil {
			t.Errorf("Validate(%s) = %v, want ok", dsn, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("validation created %d files", len(entries))
	}
}

// A malformed address is the client's mistake: ErrInvalidConfig naming
// the uri (a 400), never an unclassified error.
func TestValidate_MalformedPostgresAddress(t *testing.T) {
	for _, dsn := range []string{"postgres://floe@db:notaport/lake", "postgres://floe@db:99999/lake",
		"host=db port=5432 user='floe", "just words"} {
		cfg := catalog.Config{Name: "pg", Type: catalog.TypeSQL, Props: map[string]string{"uri": dsn, "dialect": "postgres"}}
		if err := cfg.Validate(); !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "connections.pg.props.uri") {
			t.Errorf("Validate(%s) = %v, want props.uri", dsn, err)
		}
	}
}
