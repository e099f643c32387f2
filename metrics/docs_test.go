package metrics_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/metrics"
)

// Every floe metric has a panel in the example Grafana dashboard and a row
// in the README, so the docs keep up with the registry.
func TestRegistry_Documented(t *testing.T) {
	reg := metrics.New()
	reg.CountTables(func() int { return 1 })
	reg.RunFinished("t", metrics.OutcomeCompleted, time.Second, 1)
	reg.Phase("build", time.Second)
	reg.FilesDiscovered("t", 1)
	reg.Converted("t", 1, 1, 1)
	reg.FilesFailed("t", 1)
	reg.RunKind("merge")
	reg.FilesChanged(1, 1, 1)
	reg.RowsChanged(1, 1)
	reg.CheckpointFiles("t", 1)
	reg.SetLag("t", 1, 1)
	reg.LeaseTakeover("t")
	reg.ControllerCall("GET /tables/{table}", time.Millisecond, os.ErrClosed)
	reg.StoreCall("get", time.Millisecond, os.ErrClosed)
	reg.EventReceived("glue")
	reg.EventIgnored("unknown", "malformed")
	reg.NotifyToRun(time.Second)
	families, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("decode dashboard: %v", err)
	}
	var exprs strings.Builder
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs.WriteString(tg.Expr + "\n")
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range families {
		name := f.GetName()
		if !strings.HasPrefix(name, "floe_") {
			continue
		}
		n++
		if !strings.Contains(exprs.String(), name) {
			t.Errorf("no dashboard panel queries %s", name)
		}
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("README's Metrics table does not list %s", name)
		}
	}
	if n < 18 {
		t.Fatalf("only %d floe metrics gathered", n)
	}
}
