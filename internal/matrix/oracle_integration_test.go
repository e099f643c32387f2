//go:build integration

package matrix_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/testpeer"
)

// oracle is testdata/oracle.py: PyIceberg writes and DuckDB answers.
type oracle struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *os.File
}

func startOracle(t *testing.T) *oracle {
	t.Helper()
	py := testpeer.VenvBin(t, "python")
	o := &oracle{t: t}
	var err error
	if o.stderr, err = os.Create(filepath.Join(t.TempDir(), "oracle.stderr")); err != nil {
		t.Fatal(err)
	}
	o.cmd = exec.Command(py, filepath.Join("testdata", "oracle.py"))
	o.cmd.Stderr = o.stderr
	if o.stdin, err = o.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := o.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	o.stdout = bufio.NewReaderSize(out, 1<<20)
	if err := o.cmd.Start(); err != nil {
		t.Fatalf("start oracle.py: %v", err)
	}
	t.Cleanup(func() {
		o.stdin.Close()
		if err := o.cmd.Wait(); err != nil {
			t.Errorf("oracle.py exited: %v\n%s", err, o.stderrText())
		}
		o.stderr.Close()
	})
	return o
}

func (o *oracle) stderrText() string {
	b, _ := os.ReadFile(o.stderr.Name())
	return string(b)
}

// call sends one request and decodes the answer into out (may be nil).
func (o *oracle) call(req map[string]any, out any) error {
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := o.stdin.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("oracle %s: %w\n%s", req["op"], err, o.stderrText())
	}
	ans, err := o.stdout.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("oracle %s: %w\n%s", req["op"], err, o.stderrText())
	}
	var status struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(ans, &status); err != nil {
		return fmt.Errorf("oracle %s answered %q: %w", req["op"], ans, err)
	}
	if !status.OK {
		return fmt.Errorf("oracle %s: %s", req["op"], status.Error)
	}
	if out == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(ans))
	dec.UseNumber()
	return dec.Decode(out)
}

// must is call that fails the test.
func (o *oracle) must(req map[string]any, out any) {
	o.t.Helper()
	if err := o.call(req, out); err != nil {
		o.t.Fatal(err)
	}
}

// pyWrite runs a PyIceberg writer request and returns the new snapshot id.
func (o *oracle) pyWrite(req map[string]any) int64 {
	o.t.Helper()
	var ans struct {
		Snapshot int64 `json:"snapshot"`
	}
	o.must(req, &ans)
	return ans.Snapshot
}

// answer is a DuckDB result.
type answer struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

func (o *oracle) query(ctx context.Context, sql string) (*answer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var a answer
	if err := o.call(map[string]any{"op": "query", "sql": sql}, &a); err != nil {
		return nil, fmt.Errorf("duckdb %s: %w", strings.TrimSpace(sql), err)
	}
	return &a, nil
}
