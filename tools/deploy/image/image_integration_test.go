//go:build integration

package image_test

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/tools/deploy/image"
)

const testVersion = "v0.0.0-imagetest"

// The image as built: written as an OCI layout and read back, it has the
// shape the package promises, and unpacked like a container runtime would
// it runs: `floe demo` (as the image's user, in the image's root, with
// only the image's environment) writes the demo lake under the volume,
// then the image's entrypoint and command, `floe serve`, on a real
// redis-server with an API token, answers /healthz and /version and syncs
// the demo table to exactly its rows. Nothing is written outside the
// volume and /tmp (a read-only root filesystem works).
func TestImage_RunsFromItsRootFilesystem(t *testing.T) {
	img := buildImage(t)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	checkConfig(t, cf.Config)
	size, err := image.CompressedSize(img)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image: %.1f MiB compressed", float64(size)/(1<<20))

	root := filepath.Join(t.TempDir(), "rootfs")
	if err := image.Unpack(img, root); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, root)
	run := runner{t: t, root: root, cfg: cf.Config}
	demoLake(t, run)

	redisURL := testpeer.StartRedis(t)
	addr := "127.0.0.1:" + strconv.Itoa(testpeer.FreePort(t))
	serve := run.start("floe-serve", nil, "FLOE_STORE_REDIS_URL="+redisURL, "FLOE_SERVER_ADDR="+addr,
		"FLOE_SERVER_ADMINTOKENS=image-test-token", "FLOE_SECURITY_LOCALROOTS="+image.DataDir+"/demo",
		"FLOE_WATCHER_MINSCHEDULEINTERVAL=1s")
	base := "http://" + addr
	testpeer.WaitHTTP(t, base+"/healthz", 60*time.Second, nil)
	var info struct{ Version, Commit, GoVersion string }
	if code := call(t, "GET", base+"/version", nil, &info); code != 200 || info.Version != testVersion || info.Commit != "imagetest0" {
		t.Fatalf("/version: %d %+v, want version %s, commit imagetest0", code, info, testVersion)
	}
	syncDemo(t, base)
	serve.Stop()
	if exited, err := serve.Exited(); !exited || err != nil {
		t.Fatalf("floe serve after SIGTERM: exited %v, %v; want a clean exit", exited, err)
	}
	checkWrites(t, root, before)
}

// buildImage builds a static floe and the image, writes it as an OCI
// layout and reads it back.
func buildImage(t *testing.T) v1.Image {
	t.Helper()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "floe")
	ldflags := "-s -w -X main.version=" + testVersion + " -X main.revision=imagetest0 -X main.buildDate=2026-01-01T00:00:00Z"
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./cmd/floe")
	cmd.Dir, cmd.Env = repo, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build floe: %v\n%s", err, out)
	}
	img, err := image.Build(image.Spec{Binary: bin, Passwd: filepath.Join(repo, "deploy/image/passwd"),
		Group: filepath.Join(repo, "deploy/image/group"), CACerts: "/etc/ssl/certs/ca-certificates.crt",
		ZoneInfo: "/usr/share/zoneinfo", Version: testVersion, Revision: "imagetest0",
		Source: "https://github.com/floehq/floe", Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "layout")
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("layout index: %v, %v", m, err)
	}
	back, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// checkConfig holds the config to the package's promise.
func checkConfig(t *testing.T, c v1.Config) {
	t.Helper()
	want := map[string]string{"org.opencontainers.image.version": testVersion,
		"org.opencontainers.image.revision": "imagetest0", "org.opencontainers.image.source": "https://github.com/floehq/floe",
		"org.opencontainers.image.created": "2026-01-01T00:00:00Z"}
	for k, v := range want {
		if c.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], v)
		}
	}
	if c.User != "65532:65532" || c.WorkingDir != image.DataDir || !slices.Equal(c.Entrypoint, []string{image.BinaryPath}) ||
		!slices.Equal(c.Cmd, []string{"serve"}) {
		t.Errorf("config: user %q, workdir %q, entrypoint %v, cmd %v", c.User, c.WorkingDir, c.Entrypoint, c.Cmd)
	}
	if _, ok := c.Volumes[image.DataDir]; !ok || len(c.Volumes) != 1 {
		t.Errorf("volumes %v, want only %s", c.Volumes, image.DataDir)
	}
}

// runner starts the image's binary the way a runtime would.
type runner struct {
	t    *testing.T
	root string
	cfg  v1.Config
}

// start runs args (nil: the image's command) after the entrypoint, with
// the image's environment plus env; as the image's user in its root when
// the test runs as root, otherwise in place from the unpacked tree.
func (r runner) start(name string, args []string, env ...string) *testpeer.Process {
	r.t.Helper()
	if args == nil {
		args = r.cfg.Cmd
	}
	spec := testpeer.ProcessSpec{Name: name, Cmd: r.cfg.Entrypoint[0], Args: args, Env: append(slices.Clone(r.cfg.Env), env...),
		OnlyEnv: true, Dir: r.cfg.WorkingDir, Root: r.root, Credential: &syscall.Credential{Uid: image.UID, Gid: image.UID}}
	if os.Geteuid() != 0 {
		r.t.Logf("not root: %s runs from the unpacked tree as this user, not chrooted as uid %d", name, image.UID)
		spec.Cmd, spec.Dir, spec.Root, spec.Credential = filepath.Join(r.root, spec.Cmd), filepath.Join(r.root, spec.Dir), "", nil
	}
	return testpeer.Start(r.t, spec)
}

// demoLake runs `floe demo` from the image until its first sync is
// served, which leaves the demo's SQL catalog and warehouse under the
// volume.
func demoLake(t *testing.T, run runner) {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(testpeer.FreePort(t))
	demo := run.start("floe-demo", []string{"demo", "-data", image.DataDir + "/demo", "-addr", addr, "-interval", "0"})
	testpeer.WaitHTTP(t, "http://"+addr+"/healthz", 60*time.Second, nil)
	demo.Stop()
	if _, err := os.Stat(filepath.Join(run.root, image.DataDir, "demo", "catalog.db")); err != nil {
		t.Fatalf("the demo left no catalog under the volume: %v", err)
	}
}

// syncDemo registers the demo table through the API and waits for a
// completed run holding every row of the demo's first snapshot.
func syncDemo(t *testing.T, base string) {
	t.Helper()
	conn := map[string]any{"name": "demo", "type": "sql",
		"props": map[string]string{"uri": image.DataDir + "/demo/catalog.db", "catalog-name": "demo"}}
	if code := call(t, "POST", base+"/api/v1/connections", conn, nil); code != http.StatusCreated {
		t.Fatalf("create connection: %d", code)
	}
	tbl := map[string]any{"connection": "demo", "namespace": "demo", "table": "events", "name": "events", "schedule": "* * * * * ?"}
	if code := call(t, "POST", base+"/api/v1/tables", tbl, nil); code != http.StatusCreated {
		t.Fatalf("create table: %d", code)
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		var out struct {
			Runs []struct {
				Status string
				Rows   int64
				Error  string
			}
		}
		call(t, "GET", base+"/api/v1/tables/events/runs", nil, &out)
		for _, r := range out.Runs {
			switch {
			case r.Status == "COMPLETED" && r.Rows == 1000:
				return
			case r.Status == "COMPLETED" || r.Status == "FAILED":
				t.Fatalf("run %s with %d rows (%s), want COMPLETED with the demo's 1000 rows", r.Status, r.Rows, r.Error)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the demo table did not sync within 90s")
}

func call(t *testing.T, method, url string, in, out any) int {
	t.Helper()
	var body io.Reader
	if in != nil {
		raw, _ := json.Marshal(in)
		body = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, url, body)
	req.Header.Set("Authorization", "Bearer image-test-token")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		_ = json.Unmarshal(raw, out)
	}
	return resp.StatusCode
}

// listFiles lists every path under root.
func listFiles(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out["/"+filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkWrites fails on any path created outside the volume and /tmp.
func checkWrites(t *testing.T, root string, before map[string]bool) {
	t.Helper()
	var outside []string
	for p := range listFiles(t, root) {
		if before[p] || strings.HasPrefix(p, image.DataDir+"/") || strings.HasPrefix(p, "/tmp/") {
			continue
		}
		outside = append(outside, p)
	}
	if len(outside) > 0 {
		t.Fatalf("floe wrote outside %s and /tmp: %v", image.DataDir, outside)
	}
}
