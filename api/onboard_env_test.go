package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/lakefixture"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// Secret values the onboarding tests send; no response or log line may
// hold them.
const (
	lakeToken  = "tok-9f2c41d7-never-returned"
	lakeSecret = "pw-77a1be03-never-returned"
)

var ordersSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp, Required: true},
	iceberg.NestedField{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 4, Name: "amount", Type: iceberg.PrimitiveTypes.Float64})

// sqlLake is an iceberg-go SQL catalog on sqlite in a temp directory,
// holding sales.orders (one snapshot of rows rows) and an empty
// namespace web.
type sqlLake struct {
	dbPath, name string
	rows         int
	dataFiles    int
}

func newSQLLake(t *testing.T, rows int) *sqlLake {
	t.Helper()
	dir := t.TempDir()
	l := &sqlLake{dbPath: filepath.Join(dir, "catalog.db"), name: "lakecat", rows: rows}
	lake, err := lakefixture.Open(lakefixture.Options{Name: l.name, DBPath: l.dbPath, Warehouse: "file://" + dir, BusyTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer lake.Close()
	cat := lake.Catalog
	ctx := context.Background()
	for _, ns := range []string{"sales", "web"} {
		if err := cat.CreateNamespace(ctx, table.Identifier{ns}, nil); err != nil {
			t.Fatal(err)
		}
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{"sales", "orders"}, ordersSchema)
	if err != nil {
		t.Fatal(err)
	}
	at := ordersRows(t, tbl, rows)
	defer at.Release()
	tbl, err = tbl.AppendTable(ctx, at, int64(rows), nil)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.dataFiles = len(tasks)
	return l
}

func ordersRows(t *testing.T, tbl *table.Table, n int) arrow.Table {
	t.Helper()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixMicro()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(base + int64(i)*1_000_000))
		b.Field(2).(*array.StringBuilder).Append([]string{"Lyon", "Oslo", "Lima"}[i%3])
		b.Field(3).(*array.Float64Builder).Append(float64(i) / 4)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

// storeCatalogs opens the store's connections with catalog.Open, like
// floe's own loader, and closes them when the test ends.
type storeCatalogs struct {
	store checkpoint.Store
	log   *slog.Logger
	mu    sync.Mutex
	open  []catalog.Catalog
}

func (c *storeCatalogs) Catalog(ctx context.Context, name string) (catalog.Catalog, error) {
	conn, err := c.store.GetConnection(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("connection %s: %w", name, err)
	}
	cat, err := catalog.Open(ctx, catalog.Config{Name: conn.Name, Type: conn.Type, Props: conn.Props, Secrets: conn.Secrets}, c.log)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.open = append(c.open, cat)
	c.mu.Unlock()
	return cat, nil
}

func (c *storeCatalogs) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cat := range c.open {
		_ = cat.Close()
	}
}

// LoadTable feeds the watcher through the same catalogs.
func (c *storeCatalogs) LoadTable(ctx context.Context, t checkpoint.Table) (*watcher.Source, error) {
	cat, err := c.Catalog(ctx, t.Connection)
	if err != nil {
		return nil, err
	}
	tbl, err := cat.LoadTable(ctx, catalog.TableIdent{Namespace: strings.Split(t.Namespace, "."), Name: t.Source})
	if err != nil {
		return nil, err
	}
	return &watcher.Source{Table: tbl.Iceberg, MetadataLocation: tbl.MetadataLocation}, nil
}

// lockedBuffer collects log output written from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// onboardEnv is a running API with a real watcher, the real segment
// builder and a local segment directory.
type onboardEnv struct {
	t      *testing.T
	srv    *httptest.Server
	store  checkpoint.Store
	lake   *sqlLake
	segDir string
	logs   *lockedBuffer
}

func newOnboardEnv(t *testing.T) *onboardEnv {
	t.Helper()
	e := &onboardEnv{t: t, store: checkpoint.NewMemory(), lake: newSQLLake(t, 250), segDir: t.TempDir(), logs: &lockedBuffer{}}
	logger := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cats := &storeCatalogs{store: e.store, log: logger}
	w := watcher.New(watcher.Deps{Store: e.store, Loader: cats, Builder: watcher.IcebergBuilder{},
		Uploader: pinot.NewLocalDir(e.segDir), Logger: logger},
		watcher.Options{Owner: "api-test", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(api.New(e.store, w, cats, logger, "test",
		api.Options{Policy: catalog.Policy{LocalRoots: []string{filepath.Dir(e.lake.dbPath)}}}).Handler())
	t.Cleanup(func() {
		e.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.Close(ctx); err != nil {
			t.Error(err)
		}
		cats.closeAll()
		if strings.Contains(e.logs.String(), lakeToken) || strings.Contains(e.logs.String(), lakeSecret) {
			t.Errorf("logs hold a secret:\n%s", e.logs.String())
		}
		if t.Failed() {
			t.Logf("logs:\n%s", e.logs.String())
		}
	})
	return e
}

// do sends a request with an optional JSON body and checks that the
// answer holds no secret.
func (e *onboardEnv) do(method, path string, body any) (int, string) {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if method != "GET" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	if s := string(out); strings.Contains(s, lakeToken) || strings.Contains(s, lakeSecret) {
		e.t.Fatalf("%s %s leaks a secret: %s", method, path, s)
	}
	return resp.StatusCode, string(out)
}

// want fails unless the answer has the status, and decodes it into v.
func (e *onboardEnv) want(method, path string, body any, status int, v any) string {
	e.t.Helper()
	code, out := e.do(method, path, body)
	if code != status {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, status, out)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(out), v); err != nil {
			e.t.Fatalf("%s %s: decode %s: %v", method, path, out, err)
		}
	}
	return out
}

func (e *onboardEnv) connection() map[string]any {
	return map[string]any{"name": "lake", "type": "sql",
		"props":   map[string]string{"uri": e.lake.dbPath, "catalog-name": e.lake.name},
		"secrets": map[string]string{"token": lakeToken}}
}

func (e *onboardEnv) addConnection() {
	e.t.Helper()
	e.want("POST", "/api/v1/connections", e.connection(), http.StatusCreated, nil)
}
