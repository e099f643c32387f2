package pinottest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/floehq/floe/pinot"
)

// ErrQuery means Pinot's engine answered a query with exceptions (a parse
// error, an unknown column, an execution error); the message is Pinot's.
var ErrQuery = errors.New("pinot query failed")

// Engine is one long-lived harness JVM running Apache Pinot 1.5.1's
// single-stage query engine ("query --serve") over segments loaded in it:
// the broker's compile and optimize steps, a server's segment pruning,
// planning and execution, the DataTable wire format, and the broker's
// reduce, with null handling on. Load once, query many times. An Engine is
// safe for concurrent use; requests are served one at a time.
type Engine struct {
	mu      sync.Mutex
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *bufio.Reader
	dir     string // schema and table config files of Load, JVM stderr
	stderr  *os.File
	broken  error // set when the JVM can no longer be trusted
	waitErr chan error
}

// LoadStats is what a Load did.
type LoadStats struct {
	Segments  int   `json:"segments"`  // segments the table has now
	Loaded    int   `json:"loaded"`    // segments loaded by this call
	Kept      int   `json:"kept"`      // unchanged files that stayed loaded
	Unloaded  int   `json:"unloaded"`  // segments no longer listed
	TotalDocs int64 `json:"totalDocs"` // documents in the table's segments
	Millis    int64 `json:"millis"`
}

// NewEngine starts an Engine for a test and closes it when the test ends;
// a JVM that cannot start fails the test.
func (h *Harness) NewEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := h.StartEngine(context.WithoutCancel(t.Context()))
	if err != nil {
		t.Fatalf("pinottest: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("pinottest: %v", err)
		}
	})
	return e
}

// StartEngine starts the harness JVM in serving mode. Cancelling ctx kills
// it; Close stops it.
func (h *Harness) StartEngine(ctx context.Context) (*Engine, error) {
	dir, err := os.MkdirTemp("", "floe-pinottest-engine")
	if err != nil {
		return nil, fmt.Errorf("start query engine: %w", err)
	}
	e := &Engine{dir: dir, waitErr: make(chan error, 1)}
	if e.stderr, err = os.Create(filepath.Join(dir, "stderr.log")); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start query engine: %w", err)
	}
	e.cmd = h.Command(ctx, "query", "--serve")
	e.cmd.Stderr = e.stderr
	if e.stdin, err = e.cmd.StdinPipe(); err != nil {
		e.cleanup()
		return nil, fmt.Errorf("start query engine: %w", err)
	}
	out, err := e.cmd.StdoutPipe()
	if err != nil {
		e.cleanup()
		return nil, fmt.Errorf("start query engine: %w", err)
	}
	e.stdout = bufio.NewReaderSize(out, 1<<20)
	if err := e.cmd.Start(); err != nil {
		e.cleanup()
		return nil, fmt.Errorf("%w: start query engine: %w", ErrHarness, err)
	}
	go func() { e.waitErr <- e.cmd.Wait() }()
	return e, nil
}

// Load makes exactly the given segments (directories or .tar.gz files) the
// segments of the OFFLINE table, loaded as a Pinot server loads them (with
// an index loading config from the table config and schema). Files loaded
// before and unchanged since stay loaded; a changed schema or table config
// reloads every segment. A segment Pinot cannot load fails the call and
// names the file.
func (e *Engine) Load(ctx context.Context, table string, schemaJSON, tableConfigJSON []byte, segments []string) (LoadStats, error) {
	var stats LoadStats
	schemaPath := filepath.Join(e.dir, table+".schema.json")
	tablePath := filepath.Join(e.dir, table+".table.json")
	if err := writeFiles(map[string][]byte{schemaPath: schemaJSON, tablePath: tableConfigJSON}); err != nil {
		return stats, fmt.Errorf("load table %s: %w", table, err)
	}
	if segments == nil {
		segments = []string{}
	}
	req := map[string]any{"op": "load", "table": table, "schema": schemaPath, "tableConfig": tablePath, "segments": segments}
	raw, err := e.call(ctx, req)
	if err != nil {
		return stats, fmt.Errorf("load table %s: %w", table, err)
	}
	if err := json.Unmarshal(raw, &stats); err != nil {
		return stats, fmt.Errorf("load table %s: decode answer: %w", table, err)
	}
	return stats, nil
}

// Drop unloads a table.
func (e *Engine) Drop(ctx context.Context, table string) error {
	if _, err := e.call(ctx, map[string]any{"op": "drop", "table": table}); err != nil {
		return fmt.Errorf("drop table %s: %w", table, err)
	}
	return nil
}

// Query runs sql and returns the result table exactly as a Pinot 1.5.1
// broker would answer it (numbers as json.Number, nulls as nil). A query
// Pinot rejects or fails returns an ErrQuery error with Pinot's message.
func (e *Engine) Query(ctx context.Context, sql string) (*pinot.ResultTable, error) {
	raw, err := e.call(ctx, map[string]any{"op": "query", "sql": sql})
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", sql, err)
	}
	var wrap struct {
		Response json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(raw, &wrap); err != nil {
		return nil, fmt.Errorf("query %q: decode answer: %w", sql, err)
	}
	rt, err := decodeBrokerResponse(wrap.Response)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", sql, err)
	}
	return rt, nil
}

// decodeBrokerResponse reads the engine's answer, which has the broker's
// response shape; Pinot's exceptions come back as ErrQuery errors.
func decodeBrokerResponse(raw []byte) (*pinot.ResultTable, error) {
	rt, err := pinot.DecodeBrokerResponse(raw)
	if errors.Is(err, pinot.ErrBroker) {
		return nil, fmt.Errorf("%w: %w", ErrQuery, err)
	}
	return rt, err
}

// call sends one request line and reads one answer line. A cancelled ctx
// or a broken pipe kills the JVM: the Engine is unusable afterwards.
func (e *Engine) call(ctx context.Context, req map[string]any) (json.RawMessage, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.broken != nil {
		return nil, e.broken
	}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	type answer struct {
		line []byte
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		if _, err := e.stdin.Write(append(line, '\n')); err != nil {
			done <- answer{err: err}
			return
		}
		l, err := e.stdout.ReadBytes('\n')
		done <- answer{l, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		e.kill(fmt.Errorf("%w: query engine killed: %w", ErrHarness, ctx.Err()))
		<-done
		return nil, e.broken
	}
	if a.err != nil {
		e.kill(fmt.Errorf("%w: query engine: %w\n%s", ErrHarness, a.err, e.stderrTail()))
		return nil, e.broken
	}
	var status struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(a.line, &status); err != nil {
		e.kill(fmt.Errorf("%w: query engine answered %q: %w", ErrHarness, a.line, err))
		return nil, e.broken
	}
	if !status.OK {
		return nil, fmt.Errorf("%w: %s", ErrHarness, status.Error)
	}
	return a.line, nil
}

// kill marks the engine broken and kills the JVM.
func (e *Engine) kill(cause error) {
	e.broken = cause
	if e.cmd.Cancel != nil && e.cmd.Process != nil {
		_ = e.cmd.Cancel()
	}
}

func (e *Engine) stderrTail() string {
	b, _ := os.ReadFile(e.stderr.Name())
	return tail(string(b))
}

// Close ends the JVM (closing its stdin ends the serve loop) and removes
// its files.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.cleanup()
	_ = e.stdin.Close()
	err := <-e.waitErr
	if e.broken == nil && err != nil {
		return fmt.Errorf("%w: query engine exited: %w\n%s", ErrHarness, err, e.stderrTail())
	}
	if e.broken == nil {
		e.broken = fmt.Errorf("%w: query engine closed", ErrHarness)
	}
	return nil
}

func (e *Engine) cleanup() {
	if e.stderr != nil {
		e.stderr.Close()
	}
	os.RemoveAll(e.dir)
}
