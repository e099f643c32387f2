//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
)

// The status page in a real browser (Chromium through chromedp), against
// a demo floe that asks for tokens and appends a snapshot every 2s: one
// browser for every subtest, each subtest in its own tab. Screenshots go to
// $TEST_ARTIFACTS_DIR (see artifactDir).
func TestStatusPage(t *testing.T) {
	addr, dir := startDemoWith(t, 2*time.Second, func(c *config.Config) {
		c.Server.AdminTokens = []string{testAdminToken}
		c.Server.ReadTokens = []string{testReadToken}
		c.Watcher.MergeSmallUnits = 3 // a merge within a few appends
		c.Watcher.LagInterval = time.Second
	})
	waitSnapshotAuth(t, addr, 0, testReadToken)
	browser := startBrowser(t)
	base := "http://" + addr
	t.Run("AsksForToken", func(t *testing.T) {
		tb := newTab(t, browser)
		tb.open(base + "/")
		tb.waitJS("the token form", `!document.querySelector("#login").hidden`)
		if msg := tb.text("#login-msg"); msg != "this floe asks for an API token" {
			t.Fatalf("login message %q", msg)
		}
		if n := eval[int](tb, `document.querySelectorAll("tr[data-table]").length`); n != 0 {
			t.Fatalf("the page shows %d tables without a token", n)
		}
		tb.screenshot("login")
	})
	t.Run("OverviewListsTablesWithBadgesAndLag", func(t *testing.T) {
		testOverview(t, newTab(t, browser), base)
	})
	t.Run("TablePageChartsRunHistory", func(t *testing.T) {
		testTablePage(t, newTab(t, browser), base)
	})
	t.Run("RunsSayWhatTheyDid", func(t *testing.T) {
		testRunsSayWhatTheyDid(t, newTab(t, browser), base)
	})
	t.Run("ChartLabelsFit", func(t *testing.T) {
		testChartLabelsFit(t, newTab(t, browser), base)
	})
	t.Run("LagShowsBehindWhilePaused", func(t *testing.T) {
		testLagBehind(t, newTab(t, browser), base)
	})
	t.Run("WizardSaveErrorInView", func(t *testing.T) {
		testWizardSaveErrorInView(t, newTab(t, browser), base)
	})
	t.Run("PauseResumeTriggerFromThePage", func(t *testing.T) {
		testTableActions(t, newTab(t, browser), base)
	})
	t.Run("ConnectionFormFollowsCatalogTypes", func(t *testing.T) {
		testConnectionForm(t, newTab(t, browser), base)
	})
	t.Run("WizardOnboardsATable", func(t *testing.T) {
		testWizard(t, newTab(t, browser), base, dir)
	})
	t.Run("FailedRunIsMarked", func(t *testing.T) {
		testFailedRun(t, newTab(t, browser), base, dir)
	})
}

// apiGet reads a JSON answer of floe's API with a token.
func apiGet(t *testing.T, url, token string, v any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// apiTable is the part of a tableView the tests read.
type apiTable struct {
	Name       string            `json:"name"`
	State      string            `json:"state"`
	TaskConfig map[string]string `json:"taskConfig"`
	Status     struct {
		State string `json:"state"`
	} `json:"status"`
	Lag     *struct{ Snapshots int } `json:"lag"`
	LastRun *checkpoint.Run          `json:"lastRun"`
}

// openAt opens the page with the token in the link, then goes to route.
func openAt(tb *tab, base, token, route string) {
	tb.t.Helper()
	tb.open(base + "/#token=" + token)
	tb.waitJS("the token taken from the link", `location.hash === "#/"`)
	if route != "#/" {
		eval[string](tb, "location.hash = "+jsString(route))
	}
	tb.noToken(testAdminToken, testReadToken)
}

// The overview lists the demo table with its state badge, lag and rows;
// the counts on top add up; filter and search narrow the list.
func testOverview(t *testing.T, tb *tab, base string) {
	openAt(tb, base, testReadToken, "#/")
	row := `tr[data-table="` + demoTable + `"]`
	tb.waitJS("the demo table's row", `document.querySelector('`+row+` .badge')`)
	if b := tb.text(row + " td:nth-child(2) .badge"); b != "IDLE" && b != "RUNNING" {
		t.Fatalf("state badge %q, want IDLE or RUNNING (the demo table syncs)", b)
	}
	var list struct{ Tables []apiTable }
	apiGet(t, base+"/api/v1/tables", testReadToken, &list)
	lag := tb.text(row + " td.lag")
	if list.Tables[0].Lag != nil {
		if !regexp.MustCompile(`^(in sync|\d+ snapshots? behind( · .+)?)\s*(checked .+|)$`).MatchString(lag) {
			t.Fatalf("lag cell %q, the API knows the lag %+v", lag, *list.Tables[0].Lag)
		}
	} else if lag != "–" {
		t.Fatalf("lag cell %q, but this floe sends no lag", lag)
	}
	rows, err := strconv.Atoi(strings.ReplaceAll(tb.text(row+" td.rows"), ",", ""))
	if err != nil || rows < 200 {
		t.Fatalf("rows in Pinot %q: want the demo's 200+ rows (%v)", tb.text(row+" td.rows"), err)
	}
	if n := tb.text(`[data-count="tables"] .count`); n != "1" {
		t.Fatalf("tables count %q", n)
	}
	sum := eval[int](tb, `["IDLE","RUNNING","BACKFILLING","PAUSED","DISABLED","FAILED"]
		.reduce((s, k) => s + Number(document.querySelector('[data-count="' + k + '"] .count').innerText), 0)`)
	if sum != 1 {
		t.Fatalf("the state counts add up to %d, want 1", sum)
	}
	tb.screenshot("overview")

	tb.click(`[data-filter="FAILED"]`)
	tb.waitJS("the FAILED filter to hide the healthy table", `!document.querySelector('`+row+`') && !document.querySelector("#empty").hidden`)
	if h := eval[string](tb, `location.hash`); !strings.Contains(h, "state=FAILED") {
		t.Fatalf("the filter is not in the address: %q", h)
	}
	tb.click(`[data-filter="FAILED"]`)
	tb.waitJS("the table back", `document.querySelector('`+row+`')`)
	eval[bool](tb, `(() => { const s = document.querySelector("#search"); s.value = "no-such-table";
		s.dispatchEvent(new Event("input")); return true; })()`)
	tb.waitJS("search to hide the table", `!document.querySelector('`+row+`')`)
	eval[bool](tb, `(() => { const s = document.querySelector("#search"); s.value = "demo.ev";
		s.dispatchEvent(new Event("input")); return true; })()`)
	tb.waitJS("search by source to find it", `document.querySelector('`+row+`')`)
	tb.click(`th[data-sort="rows"]`)
	tb.waitJS("sorting by rows", `document.querySelector('th[data-sort="rows"]').getAttribute("aria-sort") === "ascending"`)
}

// The table page charts the run history (one bar per run, failures
// marked as the API reports them), lists the runs and the checkpoint.
func testTablePage(t *testing.T, tb *tab, base string) {
	openAt(tb, base, testReadToken, "#/tables/"+demoTable)
	tb.waitJS("a run history of 2+ runs", `document.querySelectorAll('figure[data-chart="rows"] g.bar').length >= 2`)
	for _, c := range []string{"rows", "files", "duration", "snapshots"} {
		if n := eval[int](tb, `document.querySelectorAll('figure[data-chart="`+c+`"] g.bar').length`); n < 1 {
			t.Fatalf("chart %s has no bars", c)
		}
	}
	var runs struct{ Runs []checkpoint.Run }
	apiGet(t, base+"/api/v1/tables/"+demoTable+"/runs?limit=50", testReadToken, &runs)
	failed := 0
	for _, r := range runs.Runs {
		if r.Status == checkpoint.RunFailed || r.Status == checkpoint.RunAbandoned {
			failed++
		}
	}
	if n := eval[int](tb, `document.querySelectorAll('figure[data-chart="rows"] g.bar.failed').length`); n != failed {
		t.Fatalf("%d bars marked failed, the API has %d failed runs", n, failed)
	}
	tip := eval[string](tb, `[...document.querySelectorAll('figure[data-chart="rows"] g.bar title')].pop().textContent`)
	if !strings.Contains(tip, "rows") {
		t.Fatalf("bar tooltip %q", tip)
	}
	tb.waitJS("the runs table", `document.querySelectorAll('#runs tr[data-status="COMPLETED"]').length >= 2`)
	tb.waitJS("the checkpoint's files", `document.querySelector('#files tr[data-file] td.segments')`)
	if p := tb.text("#files tr[data-file] td.path"); !strings.HasSuffix(p, ".parquet") {
		t.Fatalf("checkpoint file %q", p)
	}
	if seg := tb.text("#files tr[data-file] td.segments"); !strings.HasPrefix(seg, demoTable+"_") {
		t.Fatalf("segments of the first file %q", seg)
	}
	if id := tb.text("#checkpoint-summary dd.snapshot"); !regexp.MustCompile(`^\d+$`).MatchString(id) {
		t.Fatalf("checkpoint snapshot id %q", id)
	}
	if !strings.Contains(tb.text("#checkpoint-summary"), "metadata.json") {
		t.Fatalf("no metadata location: %q", tb.text("#checkpoint-summary"))
	}
	var raw map[string]json.RawMessage
	apiGet(t, base+"/api/v1/tables/"+demoTable, testReadToken, &raw)
	tb.click("#pinot-schema summary")
	want := "Not served by this floe version."
	if _, ok := raw["schema"]; ok {
		want = `"schemaName": "` + demoTable + `"`
	}
	if got := tb.text("#pinot-schema"); !strings.Contains(got, want) {
		t.Fatalf("the Pinot schema panel shows %q, want %q", got, want)
	}
	tb.screenshot("table-page")
	light := eval[string](tb, `getComputedStyle(document.body).backgroundColor`)
	tb.colorScheme("dark")
	if dark := eval[string](tb, `getComputedStyle(document.body).backgroundColor`); dark == light {
		t.Fatalf("the page keeps its light background %s in dark mode", light)
	}
	tb.screenshot("table-page-dark")
}

// Pause, trigger and resume from the table page; each outcome shows, and
// the API agrees.
func testTableActions(t *testing.T, tb *tab, base string) {
	openAt(tb, base, testAdminToken, "#/tables/"+demoTable)
	table := func() apiTable {
		var v apiTable
		apiGet(t, base+"/api/v1/tables/"+demoTable, testAdminToken, &v)
		return v
	}
	tb.click(`[data-action="pause"]`)
	tb.waitJS("the pause outcome", `document.querySelector("#action-outcome.ok") && /Paused/.test(document.querySelector("#action-outcome").innerText)`)
	v := table()
	if _, ok := v.TaskConfig["schedule"]; ok || v.TaskConfig["schedule.paused"] == "" || v.Status.State != "PAUSED" {
		t.Fatalf("after pause the API shows %+v", v)
	}
	tb.waitJS("the PAUSED badge and a resume button", `document.querySelector("h1 .badge").innerText === "PAUSED" && document.querySelector('[data-action="resume"]')`)
	tb.screenshot("paused")

	run := triggerUntilRecorded(t, tb, base)
	if run.Trigger != "manual" || run.Status != checkpoint.RunCompleted {
		t.Fatalf("the run the page triggered: %+v", run)
	}
	tb.waitJS("the triggered run in the runs table", `document.querySelector('#runs tr[data-run="`+run.ID+`"]')`)

	tb.click(`[data-action="resume"]`)
	tb.waitJS("the resume outcome", `/Resumed/.test(document.querySelector("#action-outcome.ok")?.innerText)`)
	v = table()
	if _, ok := v.TaskConfig["schedule.paused"]; ok || v.TaskConfig["schedule"] == "" || v.Status.State == "PAUSED" {
		t.Fatalf("after resume the API shows %+v", v)
	}
	tb.waitJS("the pause button back", `document.querySelector('[data-action="pause"]') && document.querySelector("h1 .badge").innerText !== "PAUSED"`)

	tb.click(`[data-action="disable"]`)
	tb.waitJS("the disable outcome", `!document.querySelector("#action-outcome").hidden && !/Resumed/.test(document.querySelector("#action-outcome").innerText)`)
	if eval[bool](tb, `document.querySelector("#action-outcome").classList.contains("ok")`) {
		if v = table(); v.TaskConfig["enabled"] != "false" {
			t.Fatalf("after disable the API shows %+v", v)
		}
		tb.click(`[data-action="enable"]`)
		tb.waitJS("the enable outcome", `/Enabled/.test(document.querySelector("#action-outcome.ok")?.innerText)`)
		if v = table(); v.TaskConfig["enabled"] == "false" {
			t.Fatalf("after enable the API shows %+v", v)
		}
		testScheduleEdit(t, tb, table)
	} else if msg := tb.text("#action-outcome"); !strings.Contains(msg, "does not support") {
		t.Fatalf("disable failed: %q", msg)
	}
	tb.screenshot("actions")
}

// triggerUntilRecorded clicks "Sync now" until a run it started syncs a
// new snapshot (a run that finds nothing new leaves no record; the demo
// appends one every 2s) and returns that run as the API stores it.
func triggerUntilRecorded(t *testing.T, tb *tab, base string) checkpoint.Run {
	t.Helper()
	idPattern := regexp.MustCompile(`Run (\S+) started`)
	for range 10 {
		eval[bool](tb, `(() => { const o = document.querySelector("#action-outcome"); o.textContent = ""; o.className = "outcome"; return true; })()`)
		tb.click(`[data-action="trigger"]`)
		tb.waitJS("the trigger outcome", `/Run \S+ started/.test(document.querySelector("#action-outcome.ok")?.innerText)`)
		m := idPattern.FindStringSubmatch(tb.text("#action-outcome"))
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			var runs struct{ Runs []checkpoint.Run }
			apiGet(t, base+"/api/v1/tables/"+demoTable+"/runs?limit=10", testAdminToken, &runs)
			for _, r := range runs.Runs {
				if r.ID == m[1] && r.Status != checkpoint.RunRunning {
					return r
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	t.Fatal("no run triggered from the page was recorded")
	return checkpoint.Run{}
}

// The wizard onboards the demo's events table again as events_ui through
// a new connection to the demo's SQL catalog, with one field type edited;
// it lands on the new table's page showing the first run.
func testWizard(t *testing.T, tb *tab, base, dir string) {
	openAt(tb, base, testAdminToken, "#/onboard")
	wizardSavedConnections(t, tb)
	wizardIAMPolicy(tb)
	wizardConnectAndBrowse(t, tb, dir)
	wizardSchema(t, tb)
	wizardCreate(t, tb)
	checkOnboarded(t, base, dir)
}

// wizardSavedConnections: a saved connection is validated as stored, and
// secrets are write-only: saved, never shown again, not even in the form.
func wizardSavedConnections(t *testing.T, tb *tab) {
	t.Helper()
	tb.waitJS("the connection form", `document.querySelector("#conn-form")`)
	tb.click(`[data-connection="demo"]`)
	tb.waitJS("the saved connection validated", `!document.querySelector("#to-browse").disabled`)
	tb.click("#to-connection")

	const secret = "tok-9f8e7d6c5b4a"
	tb.waitJS("the connection form again", `document.querySelector("#conn-form")`)
	tb.typeInto("#conn-name", "unreachable")
	tb.choose("#conn-type", "rest")
	tb.typeInto(`input[name="prop:uri"]`, "http://127.0.0.1:9/catalog")
	tb.typeInto(`input[name="secret:token"]`, secret)
	tb.click("#conn-save")
	tb.waitJS("the failed validation", `document.querySelector("#validate-steps li.check.failed") && document.querySelector("#to-browse").disabled`)
	tb.screenshot("wizard-validate-failed")
	tb.click("#to-connection")
	tb.waitJS("the saved connection listed with its secret's name", `/secrets set: token/.test(document.querySelector('[data-connection="unreachable"]')?.innerText)`)
	if page := eval[string](tb, `document.documentElement.outerHTML + [...document.querySelectorAll("input")].map((i) => i.value).join(" ")`); strings.Contains(page, secret) {
		t.Fatal("the page shows a saved secret")
	}
}

// wizardIAMPolicy: an AWS type shows the least-privilege IAM policy floe
// generates for the connection in the form.
func wizardIAMPolicy(tb *tab) {
	tb.t.Helper()
	tb.typeInto("#conn-name", "lake")
	tb.choose("#conn-type", "s3tables")
	tb.typeInto(`input[name="prop:arn"]`, "arn:aws:s3tables:us-east-1:123456789012:bucket/lake")
	tb.click("#iam-panel summary")
	tb.click("#iam-generate")
	tb.waitJS("the IAM policy", `/s3tables:GetTableMetadataLocation/.test(document.querySelector('pre[data-policy="Reader role"]')?.innerText)`)
	tb.click(`button[data-download="Reader role"]`)
	tb.waitJS("the policy download's outcome", `/^Saved as floe-.*-policy\.json\.$/.test(document.querySelector('[data-copied="Reader role"]')?.textContent)`)
	tb.click(`button[data-copy="Reader role"]`)
	tb.waitJS("the policy copy's outcome", `/^(Copied|Copy refused)/.test(document.querySelector('[data-copied="Reader role"]')?.textContent)`)
	tb.screenshot("wizard-iam")
}

// wizardConnectAndBrowse saves a connection to the demo's SQL catalog,
// validates it and picks demo.events.
func wizardConnectAndBrowse(t *testing.T, tb *tab, dir string) {
	t.Helper()
	tb.choose("#conn-type", "sql")
	tb.waitJS("the sql form without the IAM panel", `document.querySelector('input[name="prop:uri"]') && !document.querySelector("#iam-panel")`)
	tb.typeInto(`input[name="prop:uri"]`, filepath.Join(dir, "catalog.db"))
	tb.typeInto(`input[name="prop:catalog-name"]`, demoCatalogName)
	tb.screenshot("wizard-connection")
	tb.click("#conn-save")

	tb.waitJS("validation", `document.querySelectorAll("#validate-steps li.check").length >= 3 && !document.querySelector("#to-browse").disabled`)
	if n := eval[int](tb, `document.querySelectorAll("#validate-steps li.check.failed").length`); n != 0 {
		t.Fatalf("%d validation steps failed", n)
	}
	tb.screenshot("wizard-validate")
	tb.click("#to-browse")
	tb.click(`[data-namespace="demo"]`)
	tb.click(`[data-catalog-table="events"]`)
}

// wizardSchema checks the field-type rules and the lossy flag, names the
// table events_ui and makes id a metric.
func wizardSchema(t *testing.T, tb *tab) {
	t.Helper()
	tb.waitJS("the inferred schema", `document.querySelector('tr[data-column="ts"]') && !document.querySelector("#to-options").disabled`)
	options := func(col, class string) []string {
		return eval[[]string](tb, `[...document.querySelectorAll('tr[data-column="`+col+`"] select.`+class+` option')].map((o) => o.value)`)
	}
	if got := options("id", "field-type"); !slices.Equal(got, []string{"DIMENSION", "METRIC", "DATE_TIME"}) {
		t.Fatalf("a LONG may be %v", got)
	}
	if got := options("ts", "field-type"); !slices.Equal(got, []string{"DATE_TIME"}) {
		t.Fatalf("a TIMESTAMP may be %v", got)
	}
	if !strings.Contains(tb.text(`tr[data-column="ts"] .lossy-flag`), "lossy") {
		t.Fatal("the timestamptz → TIMESTAMP mapping is not flagged lossy")
	}
	wizardNameTaken(t, tb)
	eval[bool](tb, `(() => { const n = document.querySelector("#pinot-name"); n.value = "events_ui";
		n.dispatchEvent(new Event("change")); return true; })()`)
	tb.waitJS("the preview under the new name", `!document.querySelector("#to-options").disabled`)
	tb.choose(`tr[data-column="id"] select.field-type`, "METRIC")
	tb.waitJS("the edited preview", `document.querySelector('tr[data-column="id"] select.field-type').value === "METRIC" && !document.querySelector("#to-options").disabled`)
	tb.screenshot("wizard-schema")
}

// wizardCreate sets the options, creates the table and waits for its
// page to show the first run.
func wizardCreate(t *testing.T, tb *tab) {
	t.Helper()
	tb.click("#to-options")
	tb.waitJS("the options", `document.querySelector("#opt-schedule")`)
	if tc := eval[string](tb, `document.querySelector("#opt-time-column").value`); tc != "ts" {
		t.Fatalf("time column %q, want ts", tc)
	}
	eval[bool](tb, `(() => { document.querySelector("#opt-schedule").value = "0 0 0 1 1 ?"; return true; })()`)
	tb.click("#opt-continue")
	tb.screenshot("wizard-options")
	watchFlicker(tb)
	tb.click("#create-table")

	tb.waitJS("the new table's page", `location.hash === "#/tables/events_ui"`)
	tb.waitJS("its first run", `document.querySelector('#runs tr[data-status="COMPLETED"]')`)
	tb.waitJS("two more refreshes", `window.__refreshes >= 2`)
	if seen := eval[[]string](tb, `window.__flicker`); len(seen) > 0 {
		t.Fatalf("the page showed a run in flight beside its own completed record: %v", seen)
	}
	tb.screenshot("wizard-first-run")
}

// wizardNameTaken: the Pinot name the wizard proposes is not an existing
// table's (floe's own name for demo.events is the demo's table), and a
// taken name is refused on this step, beside the field, before Options.
func wizardNameTaken(t *testing.T, tb *tab) {
	t.Helper()
	tb.waitJS("a proposed name", `document.querySelector("#pinot-name").value || document.querySelector("#pinot-name").placeholder`)
	proposed := eval[string](tb, `document.querySelector("#pinot-name").value || document.querySelector("#pinot-name").placeholder`)
	if proposed == demoTable {
		t.Fatalf("the wizard proposes %q, the name of an existing table", proposed)
	}
	if eval[bool](tb, `document.querySelector("#to-options").disabled`) {
		t.Fatalf("the free name %q does not lead on: %q", proposed, tb.text("#schema-msg"))
	}
	eval[bool](tb, `(() => { const n = document.querySelector("#pinot-name"); n.value = `+jsString(demoTable)+`;
		n.dispatchEvent(new Event("change")); return true; })()`)
	tb.waitJS("the refusal beside the name", `/exists already/.test(document.querySelector("#schema-editor #schema-msg.bad")?.innerText)`)
	if step := tb.text("#wizard-steps li.current"); !strings.Contains(step, "Schema") {
		t.Fatalf("the name is refused on step %q, not on the step with the field", step)
	}
	if !eval[bool](tb, `document.querySelector("#to-options").disabled && document.querySelector("#pinot-name").getAttribute("aria-invalid") === "true"`) {
		t.Fatal("a taken name still leads on to Options")
	}
	tb.screenshot("wizard-name-taken")
}

// watchFlicker records, on every change of the page, a table page that
// shows a run in flight (RUNNING badge or progress bar) while its runs
// table holds that table's newest run as ended and none running: what
// one refresh showed after create. It counts refreshes ("updated …").
func watchFlicker(tb *tab) {
	eval[bool](tb, `(() => {
		window.__flicker = []; window.__refreshes = 0;
		const check = () => {
			const badge = document.querySelector("h1 .badge")?.innerText;
			const progress = document.querySelector("#progress");
			const inFlight = badge === "RUNNING" || badge === "BACKFILLING" || (progress && !progress.hidden);
			const rows = [...document.querySelectorAll("#runs tr[data-run]")];
			if (inFlight && rows.length && !rows.some((r) => r.dataset.status === "RUNNING") && rows[0].dataset.status !== "RUNNING") {
				window.__flicker.push(badge + " / " + (progress && !progress.hidden ? progress.innerText : "") + " / " + rows[0].dataset.status);
			}
		};
		new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
		new MutationObserver(() => { if (location.hash.startsWith("#/tables/")) window.__refreshes++; })
			.observe(document.querySelector("#updated"), { childList: true, characterData: true, subtree: true });
		return true;
	})()`)
}

// checkOnboarded asserts what the wizard created, through the API and the
// schema Pinot (the local segment directory) received.
func checkOnboarded(t *testing.T, base, dir string) {
	t.Helper()
	var v apiTable
	apiGet(t, base+"/api/v1/tables/events_ui", testAdminToken, &v)
	if v.LastRun == nil || v.LastRun.Status != checkpoint.RunCompleted || v.LastRun.Rows < 200 {
		t.Fatalf("first run of events_ui: %+v", v.LastRun)
	}
	if v.TaskConfig["schedule"] != "0 0 0 1 1 ?" || v.TaskConfig["continueOnFileError"] != "true" {
		t.Fatalf("task config %v", v.TaskConfig)
	}
	var conn struct{ Type string }
	apiGet(t, base+"/api/v1/connections/lake", testAdminToken, &conn)
	if conn.Type != "sql" {
		t.Fatalf("connection lake: %+v", conn)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "segments", "events_ui*", "schema.json"))
	if len(matches) == 0 {
		t.Fatal("Pinot got no schema for events_ui")
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Metrics []struct{ Name string } `json:"metricFieldSpecs"`
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(sc.Metrics, func(f struct{ Name string }) bool { return f.Name == "id" }) {
		t.Fatalf("id is not a metric in Pinot's schema: %s", b)
	}
}

// apiPost sends a JSON body with the admin token and returns the status.
func apiPost(t *testing.T, url, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A run that fails shows everywhere: the table page marks its bar and
// shows its error as the last failed run, and the overview shows the
// FAILED badge and the error's first line. The wizard's connection is
// pointed at a catalog file that does not exist, then a run is asked for.
func testFailedRun(t *testing.T, tb *tab, base, dir string) {
	body, err := json.Marshal(map[string]any{"name": "lake", "type": "sql",
		"props": map[string]string{"uri": filepath.Join(dir, "missing.db"), "catalog-name": demoCatalogName}})
	if err != nil {
		t.Fatal(err)
	}
	if code := apiPost(t, base+"/api/v1/connections", string(body)); code != http.StatusOK {
		t.Fatalf("replace connection lake: %d", code)
	}
	openAt(tb, base, testAdminToken, "#/tables/events_ui")
	tb.click(`[data-action="trigger"]`)
	tb.waitJS("the FAILED badge", `document.querySelector("h1 .badge")?.innerText === "FAILED"`)
	tb.waitJS("the failed run's bar", `document.querySelector('figure[data-chart="rows"] g.bar.failed text.mark')`)
	var v apiTable
	apiGet(t, base+"/api/v1/tables/events_ui", testAdminToken, &v)
	if v.LastRun == nil || v.LastRun.Status != checkpoint.RunFailed || v.LastRun.Error == "" {
		t.Fatalf("last run after the catalog went missing: %+v", v.LastRun)
	}
	firstLine, _, _ := strings.Cut(v.LastRun.Error, "\n")
	tb.waitJS("the failure's log", `!document.querySelector("#failure-log").hidden`)
	if !strings.Contains(tb.text("#failure-log"), firstLine) || !strings.Contains(tb.text("#failure-log"), v.LastRun.ID) {
		t.Fatalf("the last failed run's panel shows %q; the API has run %s failing with %q", tb.text("#failure-log"), v.LastRun.ID, firstLine)
	}
	var logged struct {
		LastRun struct {
			Log []struct{ Msg string } `json:"log"`
		} `json:"lastRun"`
	}
	apiGet(t, base+"/api/v1/tables/events_ui", testAdminToken, &logged)
	if l := logged.LastRun.Log; len(l) > 0 && !strings.Contains(tb.text("#failure-log-lines"), l[0].Msg) {
		t.Fatalf("the run's log starts with %q; the page shows %q", l[0].Msg, tb.text("#failure-log-lines"))
	}
	tb.screenshot("failed-run")

	eval[string](tb, `location.hash = "#/?state=FAILED"`)
	row := `tr[data-table="events_ui"]`
	tb.waitJS("the failed table in the FAILED filter", `document.querySelector('`+row+` td .badge')?.innerText === "FAILED" &&
		!document.querySelector('tr[data-table="`+demoTable+`"]')`)
	if got := tb.text(row + " td.err"); got != firstLine {
		t.Fatalf("last error %q, want the error's first line %q", got, firstLine)
	}
	tb.screenshot("overview-failed")

	eval[string](tb, `location.hash = "#/?pageSize=1"`)
	tb.waitJS("page 1 of 2", `/page 1 of 2/.test(document.querySelector(".pager")?.innerText) &&
		document.querySelector('tr[data-table="`+demoTable+`"]')`)
	tb.click(".pager button:last-child")
	tb.waitJS("page 2 with the other table", `/page 2 of 2/.test(document.querySelector(".pager")?.innerText) &&
		document.querySelector('`+row+`') && document.querySelectorAll("tr[data-table]").length === 1`)
}

// testScheduleEdit changes the schedule from the table page: a schedule
// more frequent than floe allows is refused with the reason, a valid one
// is saved and the API agrees.
func testScheduleEdit(t *testing.T, tb *tab, table func() apiTable) {
	t.Helper()
	setSchedule := func(s string) {
		eval[bool](tb, `(() => { const i = document.querySelector("#schedule-input"); i.value = `+jsString(s)+`;
			i.dispatchEvent(new Event("input")); return true; })()`)
		tb.click(`[data-action="schedule"]`)
	}
	setSchedule("* * * * * ?")
	tb.waitJS("the refusal", `/schedule failed: .*schedule/.test(document.querySelector("#action-outcome.bad")?.innerText)`)
	setSchedule("*/20 * * * * ?")
	tb.waitJS("the saved schedule", `/Schedule saved/.test(document.querySelector("#action-outcome.ok")?.innerText)`)
	if v := table(); v.TaskConfig["schedule"] != "*/20 * * * * ?" {
		t.Fatalf("after the schedule edit the API shows %+v", v)
	}
}
