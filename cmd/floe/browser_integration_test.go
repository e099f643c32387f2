//go:build integration

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/floehq/floe/internal/testpeer"
)

// browserWait bounds every wait for the page (a failure bound, not a
// timing assertion: the page answers in well under a second).
const browserWait = 30 * time.Second

// artifactDir is where a test's screenshots go: $TEST_ARTIFACTS_DIR/<test>
// (CI keeps that directory), else the test's temporary directory.
func artifactDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("TEST_ARTIFACTS_DIR")
	if base == "" {
		return t.TempDir()
	}
	dir := filepath.Join(base, regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_"))
	if err := os.RemoveAll(dir); err != nil { // an earlier run's screenshots of this test
		t.Fatalf("clear artifact directory: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("create artifact directory: %v", err)
	}
	return dir
}

// startBrowser starts one headless Chromium for a test and its subtests;
// it stops when the test ends.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	bin := testpeer.Require(t, "chromium", "scripts/setup-chromium.sh")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 1000))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return browser
}

// tab is one browser tab of a (sub)test: its own sessionStorage, so the
// token handed to one tab is not in another.
type tab struct {
	t    *testing.T
	ctx  context.Context
	dir  string
	shot int
}

// newTab opens a tab; when the test fails, its last screen is saved and
// the path and the page's text are logged, so CI's log shows both.
func newTab(t *testing.T, browser context.Context) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	tb := &tab{t: t, ctx: ctx, dir: artifactDir(t)}
	if err := chromedp.Do(ctx); err != nil { // the tab lives as long as ctx: no deadline here
		cancel()
		t.Fatalf("open a tab: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			tb.screenshot("failed")
			body, _ := chromedp.Run(tb.bounded(), chromedp.Evaluate[string](`document.body.innerText`))
			t.Logf("page text at the failure:\n%s", body)
		}
		cancel()
	})
	return tb
}

func (tb *tab) bounded() context.Context {
	ctx, cancel := context.WithTimeout(tb.ctx, browserWait)
	tb.t.Cleanup(cancel)
	return ctx
}

// do runs actions, failing the test with what was being done.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.bounded(), actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// open loads a page of the floe at addr.
func (tb *tab) open(url string) {
	tb.t.Helper()
	tb.do("open "+url, chromedp.Navigate(url))
}

// waitJS waits until the JavaScript expression is truthy.
func (tb *tab) waitJS(what, expr string) {
	tb.t.Helper()
	if _, err := chromedp.Run(tb.bounded(), chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingTimeout(browserWait), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		tb.t.Fatalf("wait for %s (%s): %v", what, expr, err)
	}
}

// eval returns the value of a JavaScript expression.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.bounded(), chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// click clicks the first element matching a CSS selector, once visible.
func (tb *tab) click(sel string) {
	tb.t.Helper()
	tb.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// typeInto types text into the input matching a CSS selector.
func (tb *tab) typeInto(sel, text string) {
	tb.t.Helper()
	tb.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// choose sets a select's value the way a user does (change event).
func (tb *tab) choose(sel, value string) {
	tb.t.Helper()
	eval[bool](tb, fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q;
		s.dispatchEvent(new Event("change", {bubbles: true})); return s.value === %q; })()`, sel, value, value))
}

// text returns the text of the first element matching a CSS selector ("" when none).
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return eval[string](tb, fmt.Sprintf(`(document.querySelector(%q) || {}).innerText || ""`, sel))
}

// screenshot saves the whole page as <dir>/<n>-<name>.png and logs the path.
func (tb *tab) screenshot(name string) string {
	tb.t.Helper()
	tb.shot++
	png, err := chromedp.Run(tb.bounded(), chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Errorf("screenshot %s: %v", name, err)
		return ""
	}
	p := filepath.Join(tb.dir, fmt.Sprintf("%02d-%s.png", tb.shot, name))
	if err := os.WriteFile(p, png, 0o644); err != nil {
		tb.t.Errorf("save screenshot: %v", err)
		return ""
	}
	tb.t.Logf("screenshot: %s", p)
	return p
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string { return fmt.Sprintf("%q", s) }

// noToken asserts the page shows no token anywhere (DOM or address).
func (tb *tab) noToken(tokens ...string) {
	tb.t.Helper()
	page := eval[string](tb, `document.documentElement.outerHTML + location.href`)
	for _, tok := range tokens {
		if strings.Contains(page, tok) {
			tb.t.Fatalf("the page shows a token")
		}
	}
}

// colorScheme makes the tab prefer a light or dark colour scheme.
func (tb *tab) colorScheme(scheme string) {
	tb.t.Helper()
	tb.do("emulate prefers-color-scheme: "+scheme, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	}))
}
