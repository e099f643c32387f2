//go:build integration

package matrix_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/lakefixture"
	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/watcher"
)

const catalogName = "matrix"

// env is everything the matrix shares across tables: one catalog, one
// oracle process, one Pinot 1.5.1 engine JVM, one Pinot 0.11 cluster, and
// two floe watchers (local directory sink, cluster controller).
type env struct {
	t       *testing.T
	dir     string
	cat     *sqlcat.Catalog
	oracle  *oracle
	engine  *pinottest.Engine
	cluster *testpeer.PinotCluster
	broker  *pinot.Broker
	ctl     *pinot.Controller
	sink    *pinot.LocalDir
	sinkDir string
	local   syncer // writes the local directory the 1.5.1 engine reads
	remote  syncer // pushes to the 0.11 cluster
}

// syncer is one floe watcher with its own checkpoint store.
type syncer struct {
	name  string
	store checkpoint.Store
	w     *watcher.Watcher
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir()}
	h := pinottest.New(t)
	e.oracle = startOracle(t)
	e.engine = h.NewEngine(t)
	e.cluster = testpeer.StartPinot(t)
	wh := "file://" + filepath.Join(e.dir, "warehouse")
	e.cat = lakefixture.OpenT(t, lakefixture.Options{Name: catalogName, DBPath: filepath.Join(e.dir, "catalog.db"), Warehouse: wh,
		BusyTimeout: 10 * time.Second, OneConn: true}).Catalog
	e.oracle.must(map[string]any{"op": "open", "catalog": catalogName, "warehouse": wh,
		"uri": "sqlite:///" + filepath.Join(e.dir, "catalog.db")}, nil)
	e.sinkDir = filepath.Join(e.dir, "sink")
	e.sink = pinot.NewLocalDir(e.sinkDir)
	var err error
	if e.ctl, err = pinot.NewController(e.cluster.ControllerURL, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	e.broker = pinot.NewBroker(e.cluster.BrokerURL, time.Minute, nil)
	e.broker.NullHandling = false // Pinot 0.11 refuses enableNullHandling
	e.local = e.newSyncer("local", e.sink)
	e.remote = e.newSyncer("cluster", e.ctl)
	return e
}

func (e *env) newSyncer(name string, up pinot.Uploader) syncer {
	store := checkpoint.NewMemory()
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{e.cat}, Builder: watcher.IcebergBuilder{}, Uploader: up},
		watcher.Options{Owner: "matrix-" + name, LeaseTTL: time.Minute, BuildParallelism: 2,
			WorkDir: filepath.Join(e.dir, "work-"+name)})
	return syncer{name: name, store: store, w: w}
}

// loader serves tables of the shared catalog to the watchers.
type loader struct{ cat *sqlcat.Catalog }

func (l loader) LoadTable(ctx context.Context, t checkpoint.Table) (*watcher.Source, error) {
	tbl, err := l.cat.LoadTable(ctx, table.Identifier{t.Namespace, t.Source})
	if err != nil {
		return nil, err
	}
	return &watcher.Source{Table: tbl, MetadataLocation: tbl.MetadataLocation()}, nil
}

// register infers the Pinot schema and table config of an Iceberg table the
// way `floe infer` does and registers it with both watchers.
func (e *env) register(t *testing.T, pinotName, ns, source string, sc *iceberg.Schema, ov map[string]schema.Override) *schema.Result {
	t.Helper()
	res, err := schema.Infer(sc, schema.Options{Name: pinotName, Overrides: ov})
	if err != nil {
		t.Fatalf("infer Pinot schema of %s.%s: %v", ns, source, err)
	}
	tc := schema.TableConfig(res, schema.TableOptions{Connection: catalogName})
	tbl, err := api.ExternalTable(pinotName, catalogName, ns, source, res.Schema, tc)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []syncer{e.local, e.remote} {
		if err := s.store.CreateTable(t.Context(), tbl); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// synced is what one floe sync of a table on both watchers did.
type synced struct {
	snap          int64 // the snapshot the local watcher checkpointed
	clusterOK     bool  // the cluster's sync succeeded and checkpointed the same snapshot
	local, remote checkpoint.Run
}

// sync runs one floe sync of the table on both watchers. A failed cluster
// sync is a test error; the step is still compared on Pinot 1.5.1.
func (e *env) sync(t *testing.T, pinotName string) synced {
	t.Helper()
	ctx := t.Context()
	var out synced
	var err error
	out.local, err = e.local.w.RunOnce(ctx, pinotName, "matrix", nil)
	if err != nil {
		t.Fatalf("floe sync of %s into the local directory: %v (run %+v)", pinotName, err, out.local)
	}
	cp, err := e.local.store.GetCheckpoint(ctx, pinotName)
	if err != nil {
		t.Fatalf("local checkpoint of %s: %v", pinotName, err)
	}
	out.snap = cp.SnapshotID
	out.remote, err = e.remote.w.RunOnce(ctx, pinotName, "matrix", nil)
	if err != nil {
		t.Errorf("floe sync of %s into the Pinot 0.11 cluster: %v", pinotName, err)
		return out
	}
	rcp, err := e.remote.store.GetCheckpoint(ctx, pinotName)
	if err != nil {
		t.Fatalf("cluster checkpoint of %s: %v", pinotName, err)
	}
	if rcp.SnapshotID != cp.SnapshotID {
		t.Fatalf("the two watchers checkpointed different snapshots of %s: %d and %d (run %+v)", pinotName,
			cp.SnapshotID, rcp.SnapshotID, out.remote)
	}
	out.clusterOK = true
	return out
}

// loadEngine loads the local sink's live segments of the table into the
// Pinot 1.5.1 engine, with the schema floe stores for the table (as
// evolved) and the table config, and returns their names, sorted.
func (e *env) loadEngine(t *testing.T, pinotName string, tc *spec.TableConfig) []string {
	t.Helper()
	ctx := t.Context()
	names, err := e.sink.ListSegments(ctx, pinotName)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(e.sinkDir, pinotName, n+".tar.gz")
	}
	rec, err := e.local.store.GetTable(ctx, pinotName)
	if err != nil {
		t.Fatal(err)
	}
	tj, _ := json.Marshal(tc)
	sj := rec.SchemaJSON
	if _, err := e.engine.Load(ctx, pinotName, sj, tj, paths); err != nil {
		t.Fatalf("Pinot 1.5.1 cannot load the segments of %s: %v", pinotName, err)
	}
	slices.Sort(names)
	return names
}

// waitRouting waits until the cluster's broker routes queries of the table
// to exactly the segments the controller lists (a replacement's old
// segments are gone from routing, its new ones are online and the server
// answers over them) and returns them, sorted.
func (e *env) waitRouting(t *testing.T, pinotName string) []string {
	t.Helper()
	ctx := t.Context()
	want, err := e.ctl.ListSegments(ctx, pinotName)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	deadline := time.Now().Add(2 * time.Minute)
	var got []string
	for time.Now().Before(deadline) {
		if got, err = e.routedSegments(ctx, pinotName); err == nil && slices.Equal(got, want) && e.serverHolds(ctx, pinotName) {
			return want
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("broker routing of %s never matched the controller: routed %v (err %v), controller %v",
		pinotName, got, err, want)
	return nil
}

// serverHolds reports whether the server answers a query over every
// segment the broker routes: right after a table is created again under
// the same name, the routing can name segments the server is still
// loading (broker error 235, ServerSegmentMissing).
func (e *env) serverHolds(ctx context.Context, pinotName string) bool {
	_, err := e.broker.Query(ctx, "SELECT count(*) FROM "+pinotName)
	return err == nil || !strings.Contains(err.Error(), "ServerSegmentMissing")
}

func (e *env) routedSegments(ctx context.Context, pinotName string) ([]string, error) {
	url := e.cluster.BrokerURL + "/debug/routingTable/" + pinotName
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var rt map[string]map[string][]string // table with type → server → segments
	if err := json.NewDecoder(resp.Body).Decode(&rt); err != nil {
		return nil, fmt.Errorf("decode routing table: %w", err)
	}
	var segs []string
	for tableType, servers := range rt {
		if !strings.HasSuffix(tableType, "_OFFLINE") {
			continue
		}
		for _, s := range servers {
			segs = append(segs, s...)
		}
	}
	slices.Sort(segs)
	return segs, nil
}
