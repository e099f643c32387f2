package api_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// checkpoint C13 through the API: DELETE /connections/x racing POST
// /tables on x, 100 rounds. Exactly one of the two succeeds each round;
// the loser answers 409 (or, for a create that looked the connection up
// after it was gone, 400 or 404 naming it); no stored table is left
// without its connection.
func TestServer_ConnectionDeleteRacesTableCreate(t *testing.T) {
	e := newOnboardEnv(t)
	const rounds = 100
	outcomes := map[string]int{}
	for i := range rounds {
		conn := e.connection()
		name := fmt.Sprintf("lake%03d", i)
		conn["name"] = name
		e.want("POST", "/api/v1/connections", conn, http.StatusCreated, nil)
		var createCode, deleteCode int
		var createOut, deleteOut string
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			createCode, createOut = e.do("POST", "/api/v1/tables", map[string]any{"connection": name, "namespace": "sales",
				"table": "orders", "name": fmt.Sprintf("orders_%03d", i), "taskConfig": map[string]string{"enabled": "false"}})
		}()
		go func() {
			defer wg.Done()
			<-start
			deleteCode, deleteOut = e.do("DELETE", "/api/v1/connections/"+name, "")
		}()
		close(start)
		wg.Wait()
		outcome := fmt.Sprintf("create %d, delete %d", createCode, deleteCode)
		switch outcome {
		case "create 201, delete 409", "create 409, delete 204", "create 400, delete 204", "create 404, delete 204":
			outcomes[outcome]++
		default:
			t.Fatalf("round %d: %s (%s / %s): want exactly one to succeed", i, outcome, createOut, deleteOut)
		}
	}
	tables, err := e.store.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	orphans := 0
	for _, tb := range tables {
		if _, err := e.store.GetConnection(context.Background(), tb.Connection); err != nil {
			orphans++
		}
	}
	if orphans != 0 || len(tables) != outcomes["create 201, delete 409"] {
		t.Fatalf("%d orphan tables; %d tables for outcomes %v", orphans, len(tables), outcomes)
	}
	t.Logf("%d rounds: %v, 0 orphans", rounds, outcomes)
}
