package checkpointtest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/floehq/floe/checkpoint"
)

// C13: a table never outlives its connection. CreateBoundTable needs the
// connection stored, DeleteConnection refuses while a table names it,
// each checked in the step that writes.
func testConnectionReferences(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	tbl := checkpoint.Table{Name: "orders", Connection: "lake", Namespace: "sales", Source: "orders"}
	err := s.CreateBoundTable(ctx, tbl)
	wantErr(t, "CreateBoundTable(no connection)", err, checkpoint.ErrNoConnection)
	if !strings.Contains(err.Error(), `"lake"`) {
		t.Fatalf("CreateBoundTable error does not name the connection: %v", err)
	}
	if _, err := s.GetTable(ctx, "orders"); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Fatalf("a refused table was stored: %v", err)
	}
	must(t, "PutConnection", s.PutConnection(ctx, fullConnection("lake")))
	must(t, "CreateBoundTable", s.CreateBoundTable(ctx, tbl))
	wantErr(t, "CreateBoundTable(again)", s.CreateBoundTable(ctx, tbl), checkpoint.ErrConflict)
	must(t, "CreateTable(other)", s.CreateTable(ctx, checkpoint.Table{Name: "events", Connection: "lake"}))
	err = s.DeleteConnection(ctx, "lake")
	wantErr(t, "DeleteConnection(in use)", err, checkpoint.ErrInUse)
	if !strings.Contains(err.Error(), "events, orders") {
		t.Fatalf("DeleteConnection error does not name the tables: %v", err)
	}
	if _, err := s.GetConnection(ctx, "lake"); err != nil {
		t.Fatalf("a refused delete removed the connection: %v", err)
	}
	must(t, "DeleteTable orders", s.DeleteTable(ctx, "orders"))
	must(t, "DeleteTable events", s.DeleteTable(ctx, "events"))
	must(t, "DeleteConnection(unused)", s.DeleteConnection(ctx, "lake"))
}

// RaceRounds is how many rounds ConnectionDeleteRace runs.
const RaceRounds = 100

// testConnectionDeleteRace races DeleteConnection against CreateBoundTable
// on the same connection, RaceRounds times: exactly one of the two wins
// each round, and no stored table names a missing connection (C13).
func testConnectionDeleteRace(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	var tablesWon, deletesWon int
	for i := range RaceRounds {
		conn := fmt.Sprintf("conn-%03d", i)
		must(t, "PutConnection", s.PutConnection(ctx, fullConnection(conn)))
		var createErr, deleteErr error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			createErr = s.CreateBoundTable(ctx, checkpoint.Table{Name: fmt.Sprintf("t_%03d", i), Connection: conn})
		}()
		go func() {
			defer wg.Done()
			<-start
			deleteErr = s.DeleteConnection(ctx, conn)
		}()
		close(start)
		wg.Wait()
		switch {
		case createErr == nil && errors.Is(deleteErr, checkpoint.ErrInUse):
			tablesWon++
		case deleteErr == nil && errors.Is(createErr, checkpoint.ErrNoConnection):
			deletesWon++
		default:
			t.Fatalf("round %d: create = %v, delete = %v: want exactly one to win", i, createErr, deleteErr)
		}
	}
	tables, err := s.ListTables(ctx)
	must(t, "ListTables", err)
	conns, err := s.ListConnections(ctx)
	must(t, "ListConnections", err)
	stored := map[string]bool{}
	for _, c := range conns {
		stored[c.Name] = true
	}
	orphans := 0
	for _, tb := range tables {
		if !stored[tb.Connection] {
			orphans++
		}
	}
	if orphans != 0 || len(tables) != tablesWon {
		t.Fatalf("%d orphan tables, %d tables for %d won creates", orphans, len(tables), tablesWon)
	}
	t.Logf("%d rounds: %d creates won, %d deletes won, 0 orphans", RaceRounds, tablesWon, deletesWon)
}
