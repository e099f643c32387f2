//go:build integration

package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/testpeer"
)

// chromiumDOM loads url in headless Chromium, lets its scripts run, and
// returns the DOM; it also saves a screenshot next to the test's files.
func chromiumDOM(t *testing.T, url, shot string) string {
	t.Helper()
	bin := testpeer.Require(t, "chromium", "scripts/setup-chromium.sh")
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000", "--window-size=1400,600"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin, append(args, "--screenshot="+shot, url)...).CombinedOutput(); err != nil {
		t.Fatalf("chromium screenshot: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, bin, append(args, "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatalf("chromium dump-dom: %v", err)
	}
	return string(out)
}

// The status page, rendered by a real browser against a floe that asks
// for a token, shows the demo table with the snapshot id floe checkpointed
// and its completed last run, once given a read token (in the link's
// fragment, which the page keeps in sessionStorage and drops from the
// address). The demo appends no second snapshot here, so what the page
// shows is stable.
func TestStatusPage_ShowsSyncedTable(t *testing.T) {
	addr, _ := startDemoWith(t, time.Hour, func(c *config.Config) {
		c.Server.AdminTokens = []string{testAdminToken}
		c.Server.ReadTokens = []string{testReadToken}
	})
	v := waitSnapshotAuth(t, addr, 0, testReadToken)
	shot := filepath.Join(t.TempDir(), "status.png")
	dom := chromiumDOM(t, "http://"+addr+"/#token="+testReadToken, shot)
	if strings.Contains(dom, testReadToken) {
		t.Fatalf("the page shows the token:\n%s", dom)
	}
	if !strings.Contains(dom, `<form id="login" hidden="">`) {
		t.Fatalf("the token form shows although a token was given:\n%s", dom)
	}
	for _, want := range []string{
		`data-table="` + demoTable + `"`,
		fmt.Sprint(v.Checkpoint.SnapshotID),
		`class="state COMPLETED"`,
		"demo.events",
	} {
		if !strings.Contains(dom, want) {
			t.Fatalf("status page lacks %q; DOM:\n%s", want, dom)
		}
	}
	if strings.Contains(dom, "cannot reach floe") {
		t.Fatalf("status page shows an error:\n%s", dom)
	}
	t.Logf("screenshot: %s", shot)
}

// Without a token the page asks for one and shows no table.
func TestStatusPage_AsksForToken(t *testing.T) {
	addr, _ := startDemoWith(t, time.Hour, func(c *config.Config) { c.Server.ReadTokens = []string{testReadToken} })
	waitSnapshotAuth(t, addr, 0, testReadToken)
	dom := chromiumDOM(t, "http://"+addr+"/", filepath.Join(t.TempDir(), "login.png"))
	for _, want := range []string{`<form id="login">`, "this floe asks for an API token", `type="password"`} {
		if !strings.Contains(dom, want) {
			t.Fatalf("status page lacks %q; DOM:\n%s", want, dom)
		}
	}
	if strings.Contains(dom, `data-table="`+demoTable+`"`) {
		t.Fatalf("the page shows tables without a token:\n%s", dom)
	}
}
