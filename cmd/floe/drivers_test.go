package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floehq/floe/checkpoint"
)

// A connection record an older floe stored with the mysql driver (which a
// library links into the binary) or a Postgres option that reads a local
// file is refused when used — validate, browse and runs answer 400 or
// fail naming the driver or option — and floe never dials its server.
func TestServe_StoredConnectionsWithRefusedDrivers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int32
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
	addr := ln.Addr().String()
	e := startServed(t, nil)
	ctx := context.Background()
	stored := map[string]struct {
		props map[string]string
		want  string
	}{
		"rogue":       {map[string]string{"driver": "mysql", "uri": "u@tcp(" + addr + ")/x?allowAllFiles=true"}, "props.driver: unsupported driver"},
		"bad-address": {map[string]string{"driver": "mysql", "uri": "u@tcp(" + addr + "/x"}, "props.driver: unsupported driver"},
		"pg-sslkey":   {map[string]string{"uri": "postgres://floe@" + addr + "/x?sslmode=require&sslkey=/etc/ssl/private/k.pem"}, "props.uri: option sslkey is refused"},
		"pg-service":  {map[string]string{"dialect": "postgres", "uri": "host=" + addr + " service=lake servicefile=/tmp/pg_service.conf"}, "props.uri: option service"},
	}
	for name, c := range stored {
		if err := e.app.store.PutConnection(ctx, checkpoint.Connection{Name: name, Type: "sql", Props: c.props}); err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct{ method, path string }{
			{"POST", "/api/v1/connections/" + name + "/validate"},
			{"GET", "/api/v1/connections/" + name + "/namespaces"},
		} {
			code, _, out := e.do(r.method, r.path, nil, "")
			if code != http.StatusBadRequest || !strings.Contains(out, "connections."+name+"."+c.want) {
				t.Errorf("%s %s: %d %s, want 400 naming %s", r.method, r.path, code, out, c.want)
			}
		}
		tbl := checkpoint.Table{Name: "t_" + strings.ReplaceAll(name, "-", "_"), Connection: name, Namespace: "x", Source: "y",
			TaskConfig: map[string]string{"schedule": "0 0 * * * ?"}}
		if err := e.app.watcher.AddTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		waitFailedRuns(t, e, []string{tbl.Name})
		runs, err := e.app.store.ListRuns(ctx, tbl.Name, 1)
		if err != nil || !strings.Contains(runs[0].Error, c.want) {
			t.Errorf("run of %s: %v %v, want an error naming %s", tbl.Name, runs, err, c.want)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("floe dialled the refused connections' server %d times", n)
	}
}
