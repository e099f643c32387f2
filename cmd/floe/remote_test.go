package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floehq/floe/internal/config"
)

const fakeToken = "tok-remote-91ac"

// fakeAPI answers the remote commands' requests with literal JSON and
// wants fakeToken.
func fakeAPI(t *testing.T) string {
	t.Helper()
	var polls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/tables", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"tables":[{"name":"orders","source":"s.orders","status":{"state":"PAUSED"}},`+
			`{"name":"events","source":"s.events","status":{"state":"IDLE"}}],"page":1,"pageSize":100,"total":2,"pages":1,"echo":%q}`,
			r.URL.RawQuery)
	})
	mux.HandleFunc("POST /api/v1/tables/orders/trigger", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, `{"runId":"r5"}`)
	})
	mux.HandleFunc("GET /api/v1/tables/orders/status", func(w http.ResponseWriter, r *http.Request) {
		if polls.Add(1) == 1 {
			fmt.Fprint(w, `{"table":"orders","state":"RUNNING","runningRunId":"r5","progress":{"filesDone":1,"filesTotal":2,"rows":7}}`)
			return
		}
		fmt.Fprint(w, `{"table":"orders","state":"IDLE"}`)
	})
	mux.HandleFunc("GET /api/v1/tables/orders/runs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"runs":[{"id":"r5","table":"orders","status":"FAILED","error":"convert a.parquet: column x: bad\ntrace"}]}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"table nope: not found"}`)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+fakeToken {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"authentication required: send Authorization: Bearer <token>"}`)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func runRemote(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := dispatch(t.Context(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// The address and token come from FLOE_ADDR and FLOE_TOKEN; the token is
// never printed, not even by -h.
func TestRemote_EnvAndToken(t *testing.T) {
	t.Setenv(config.AddrEnv, fakeAPI(t))
	t.Setenv(config.TokenEnv, "")
	t.Setenv(config.APITokenEnv, "")
	if _, _, err := runRemote(t, "tables"); err == nil || !strings.Contains(err.Error(), "authentication required") {
		t.Fatalf("without a token: %v", err)
	}
	t.Setenv(config.APITokenEnv, fakeToken) // the older variable still works
	if _, _, err := runRemote(t, "tables"); err != nil {
		t.Fatalf("with %s: %v", config.APITokenEnv, err)
	}
	t.Setenv(config.APITokenEnv, "")
	t.Setenv(config.TokenEnv, fakeToken)
	out, _, err := runRemote(t, "tables", "-state", "paused,failed", "-q", "ord")
	if err != nil || !strings.Contains(out, "orders") {
		t.Fatalf("tables: %v\n%s", err, out)
	}
	help, errOut, err := runRemote(t, "tables", "-h")
	if err != flag.ErrHelp || strings.Contains(help+errOut+out, fakeToken) || !strings.Contains(help, config.TokenEnv) {
		t.Fatalf("help (%v) on standard output names the variable, not the token:\n%s", err, help)
	}
	if _, err := config.Load("", []string{config.AddrEnv + "=x", config.TokenEnv + "=y"}); err != nil {
		t.Fatalf("the client's variables must not be taken for settings: %v", err)
	}
}

// -o json is the API's JSON; the filters reach the server; a 404 names
// the table.
func TestRemote_TablesJSONAndNotFound(t *testing.T) {
	addr := fakeAPI(t)
	out, _, err := runRemote(t, "tables", "-addr", addr, "-token", fakeToken, "-o", "json", "-state", "paused", "-page-size", "5")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tables []struct {
			Name   string `json:"name"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Tables) != 2 || got.Tables[0].Status.State != "PAUSED" {
		t.Fatalf("json %v: %s", err, out)
	}
	_, _, err = runRemote(t, "status", "nope", "-addr", addr, "-token", fakeToken)
	if err == nil || err.Error() != "table nope not found" {
		t.Fatalf("404: %v", err)
	}
	if _, _, err := runRemote(t, "runs", "-addr", addr); err == nil || !strings.Contains(err.Error(), "name a table") {
		t.Fatalf("no table: %v", err)
	}
	if _, _, err := runRemote(t, "pause", "a", "b", "-addr", addr); err == nil || !strings.Contains(err.Error(), "unexpected") {
		t.Fatalf("two tables: %v", err)
	}
	if _, _, err := runRemote(t, "tables", "-o", "yaml"); err == nil || !strings.Contains(err.Error(), "yaml") {
		t.Fatalf("bad output: %v", err)
	}
}

// trigger -wait follows the run, prints plain progress lines off a
// terminal, and fails with the run's error when the run failed.
func TestRemote_TriggerWaitFails(t *testing.T) {
	addr := fakeAPI(t)
	out, errOut, err := runRemote(t, "trigger", "-addr", addr, "-token", fakeToken, "-wait", "-poll", "1ms", "orders")
	if err == nil || !strings.Contains(err.Error(), "run r5 of table orders FAILED: convert a.parquet: column x: bad") ||
		strings.Contains(err.Error(), "trace") {
		t.Fatalf("failed run: %v", err)
	}
	if !strings.Contains(errOut, "run orders: 1/2 files, 7 rows") {
		t.Fatalf("progress lines:\n%s", errOut)
	}
	if !strings.Contains(out, "run r5 of table orders: FAILED") {
		t.Fatalf("outcome:\n%s", out)
	}
	out, _, err = runRemote(t, "trigger", "orders", "-addr", addr, "-token", fakeToken)
	if err != nil || out != "run r5 of table orders started\n" {
		t.Fatalf("trigger: %q %v", out, err)
	}
}

// An unreachable floe is named with a hint, not mistaken for a 404.
func TestRemote_Unreachable(t *testing.T) {
	_, _, err := runRemote(t, "status", "orders", "-addr", "http://127.0.0.1:1", "-token", fakeToken)
	if err == nil || !strings.Contains(err.Error(), "is floe running there") || strings.Contains(err.Error(), fakeToken) {
		t.Fatalf("unreachable: %v", err)
	}
}

func TestParseWithTable(t *testing.T) {
	for _, args := range [][]string{{"T", "-o", "json"}, {"-o", "json", "T"}, {"-o", "json", "T", "-limit", "3"}} {
		fs := flag.NewFlagSet("runs", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o := fs.String("o", "table", "")
		limit := fs.Int("limit", 1, "")
		name, err := parseWithTable(fs, args)
		if err != nil || name != "T" || *o != "json" || (len(args) == 5 && *limit != 3) {
			t.Errorf("%q: name %q o %q limit %d: %v", args, name, *o, *limit, err)
		}
	}
}
