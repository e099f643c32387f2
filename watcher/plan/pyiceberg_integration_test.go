//go:build integration

package plan_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// pyWriter changes a table with PyIceberg (testdata/pyiceberg_ops.py) and
// reads it with iceberg-go through the same sqlite SQL catalog.
type pyWriter struct {
	*lake
	in  io.WriteCloser
	out *bufio.Scanner
}

// newPyWriter starts the PyIceberg driver and creates the table. The
// repo venv (bash scripts/setup-python.sh) must exist: a missing peer
// fails the test.
func newPyWriter(t *testing.T, cfg lakeConfig, merge bool) *pyWriter {
	t.Helper()
	python, err := filepath.Abs("../../.venv/bin/python")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("PyIceberg peer missing (%v): run bash scripts/setup-python.sh", err)
	}
	dir := t.TempDir()
	cmd := exec.Command(python, "testdata/pyiceberg_ops.py", "--uri", "sqlite:///"+filepath.Join(dir, "cat.db"),
		"--warehouse", "file://"+filepath.Join(dir, "wh"), "--catalog", "floe")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start PyIceberg driver: %v", err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	w := &pyWriter{in: in, out: bufio.NewScanner(stdout)}
	w.out.Buffer(make([]byte, 1<<16), 1<<20)
	w.send(t, map[string]any{"op": "create", "version": cfg.version, "partitioned": cfg.partitioned, "merge": merge})
	w.lake = openLake(t, dir, "floe")
	w.lake.cfg = cfg
	return w
}

// send runs one command and fails the test with PyIceberg's error.
func (w *pyWriter) send(t testing.TB, cmd map[string]any) {
	t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := fmt.Fprintf(w.in, "%s\n", b); err != nil {
		t.Fatalf("send %s to PyIceberg: %v", b, err)
	}
	if !w.out.Scan() {
		t.Fatalf("PyIceberg driver gave no answer to %s: %v", b, w.out.Err())
	}
	var res struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(w.out.Bytes(), &res); err != nil || !res.OK {
		t.Fatalf("PyIceberg %s: %s (%v)", b, res.Error, err)
	}
}

func (w *pyWriter) ids(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = w.next
		w.next++
	}
	return out
}

func (w *pyWriter) step(rng *rand.Rand) (string, bool) {
	t := w.t
	if w.next == 0 {
		w.send(t, map[string]any{"op": "append", "ids": w.ids(1 + rng.IntN(30))})
		return "append", true
	}
	lo := rng.Int64N(w.next)
	hi := lo + 1 + rng.Int64N(12)
	switch r := rng.IntN(100); {
	case r < 40:
		w.send(t, map[string]any{"op": "append", "ids": w.ids(1 + rng.IntN(40))})
		return "append", true
	case r < 52:
		w.send(t, map[string]any{"op": "overwrite", "lo": lo, "hi": hi, "ids": w.ids(1 + rng.IntN(10))})
		return "overwrite", true
	case r < 66:
		w.send(t, map[string]any{"op": "delete", "lo": lo, "hi": hi})
		return "cow-delete", true
	case r < 74 && w.cfg.partitioned:
		w.send(t, map[string]any{"op": "dynamic_overwrite", "ids": w.ids(1 + rng.IntN(10))})
		return "dynamic-overwrite", true
	case r < 84:
		w.send(t, map[string]any{"op": "rewrite", "p": rng.IntN(parts)})
		return "rewrite", true
	case r < 92:
		w.send(t, map[string]any{"op": "rollback", "back": 1 + rng.IntN(3)})
		return "rollback", false
	}
	w.send(t, map[string]any{"op": "expire", "keep": 1 + rng.IntN(3)})
	return "expire", false
}

// P1, P4, P5, P6: random operation sequences on PyIceberg tables
// (appends, fast and merging; overwrites; copy-on-write deletes; dynamic
// partition overwrites; partition rewrites; rollbacks; expiry) plan the
// same both ways.
func TestPlanner_Plan_PropertyPyIceberg(t *testing.T) {
	seed := propertySeed(t)
	for i, c := range []struct {
		cfg   lakeConfig
		merge bool
	}{
		{lakeConfig{version: 2}, false},
		{lakeConfig{version: 2, partitioned: true}, true},
		{lakeConfig{version: 1, partitioned: true}, false},
		{lakeConfig{version: 2}, true},
	} {
		name := c.cfg.String()
		if c.merge {
			name += "-merge"
		}
		t.Run(name, func(t *testing.T) {
			_ = runProperty(t, newPyWriter(t, c.cfg, c.merge), 45, seed, i)
		})
	}
}
