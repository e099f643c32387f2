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

// The status page, rendered by a real browser, shows the demo table with
// the snapshot id floe checkpointed and its completed last run. The demo
// appends no second snapshot here, so what the page shows is stable.
func TestStatusPage_ShowsSyncedTable(t *testing.T) {
	addr, _ := startDemo(t, time.Hour)
	v := waitSnapshot(t, addr, 0)
	shot := filepath.Join(t.TempDir(), "status.png")
	dom := chromiumDOM(t, "http://"+addr+"/", shot)
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
