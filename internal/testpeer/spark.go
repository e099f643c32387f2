package testpeer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sparkStartTimeout bounds the Spark session's start-up (a JVM with
// Iceberg's runtime, on a busy two-core machine); sparkBatchTimeout bounds
// one batch of steps.
const (
	sparkStartTimeout = 5 * time.Minute
	sparkBatchTimeout = 10 * time.Minute
)

// SparkSetupHint is how to install the Spark peer.
const SparkSetupHint = "run scripts/setup-spark.sh (PySpark into .venv, Iceberg's Spark runtime jar into tools/spark/target/lib)"

// Spark is one long-lived Spark session (PySpark with Apache Iceberg's
// Spark runtime, local[2], bound to 127.0.0.1, no UI) driven through
// tools/python/spark_lake.py. It writes Iceberg tables into a Hadoop
// catalog on a local warehouse directory, which floe reads as a `hadoop`
// connection with a file:// warehouse.
type Spark struct {
	// Catalog is the Spark catalog's name; steps name tables "ns.table"
	// inside it.
	Catalog string
	// Warehouse is the local warehouse directory (absolute).
	Warehouse string

	proc  *Process
	in    *os.File
	lines chan string
}

// SparkStep is one step of spark_lake.py; see its docstring for the ops.
type SparkStep struct {
	Op    string `json:"op"`
	Table string `json:"table"` // "ns.name"
	// Commits and Rows: an insert of Commits INSERTs (one data file each)
	// of Rows rows, ids from From on.
	Commits int   `json:"commits,omitempty"`
	Rows    int   `json:"rows,omitempty"`
	From    int64 `json:"from,omitempty"`
	// Where is a delete's condition in Spark SQL.
	Where string `json:"where,omitempty"`
	// Strategy (binpack or sort) and SortOrder ("id DESC NULLS LAST") of a
	// rewrite_data step.
	Strategy  string `json:"strategy,omitempty"`
	SortOrder string `json:"sort_order,omitempty"`
	// Options are the procedure's options (rewrite_data, rewrite_deletes).
	Options map[string]string `json:"options,omitempty"`
}

// SparkResult is what one step reports.
type SparkResult struct {
	Op    string `json:"op"`
	Table string `json:"table"`
	// SnapshotID and Operation are the table's current snapshot after the
	// step (0 and "" when it has none).
	SnapshotID int64  `json:"snapshotId"`
	Operation  string `json:"operation"`
	// Result holds a procedure's output columns (rewrite_data,
	// rewrite_deletes), e.g. rewritten_data_files_count.
	Result map[string]int64 `json:"result"`
	// Rows are the table's rows, ordered by id (rows).
	Rows []SparkRow `json:"rows"`
}

// SparkRow is one row of the peer's table schema (id bigint, v string).
type SparkRow struct {
	ID int64
	V  string
}

// UnmarshalJSON reads the [id, v] pair spark_lake.py prints.
func (r *SparkRow) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("decode spark row %s: want [id, v]", b)
	}
	if err := json.Unmarshal(pair[0], &r.ID); err != nil {
		return fmt.Errorf("decode spark row id %s: %w", pair[0], err)
	}
	if err := json.Unmarshal(pair[1], &r.V); err != nil {
		return fmt.Errorf("decode spark row v %s: %w", pair[1], err)
	}
	return nil
}

// StartSpark starts a Spark session whose Hadoop catalog named catalog
// keeps its tables under a new warehouse directory in t.TempDir(). The
// session lives until the test ends. A missing peer (Java, PySpark or the
// Iceberg runtime jar) fails the test with the setup command.
func StartSpark(t testing.TB, catalog string) *Spark {
	t.Helper()
	Require(t, "java", "apt-get install -y openjdk-17-jre-headless")
	root := RepoRoot(t)
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("testpeer: %s not found: %s", python, SparkSetupHint)
	}
	jars, _ := filepath.Glob(filepath.Join(root, "tools", "spark", "target", "lib", "iceberg-spark-runtime-3.5_2.12-*.jar"))
	if len(jars) != 1 {
		t.Fatalf("testpeer: want one Iceberg Spark runtime jar in tools/spark/target/lib, found %d: %s", len(jars), SparkSetupHint)
	}
	dir := t.TempDir()
	s := &Spark{Catalog: catalog, Warehouse: filepath.Join(dir, "warehouse"), lines: make(chan string, 64)}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatalf("testpeer: spark stdin pipe: %v", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatalf("testpeer: spark stdout pipe: %v", err)
	}
	s.proc = Start(t, ProcessSpec{Name: "spark", Cmd: python, Dir: dir, Stdin: inR, Stdout: outW,
		Args: []string{filepath.Join(root, "tools", "python", "spark_lake.py"),
			"--warehouse", s.Warehouse, "--catalog", catalog, "--jar", jars[0]},
		Env: []string{"SPARK_LOCAL_IP=127.0.0.1", "SPARK_LOCAL_DIRS=" + filepath.Join(dir, "scratch"), "PYSPARK_PYTHON=" + python}})
	_ = inR.Close()
	_ = outW.Close()
	s.in = inW
	// Registered after Start's hook, so it runs first: end of input lets
	// the script stop its session before the process is signalled.
	t.Cleanup(func() { _ = s.in.Close() })
	go s.readLines(outR)
	for s.next(t, sparkStartTimeout) != "READY" { // skip whatever is printed before
	}
	return s
}

// readLines forwards the script's stdout lines until it closes.
func (s *Spark) readLines(out *os.File) {
	defer close(s.lines)
	defer out.Close()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		s.lines <- sc.Text()
	}
}

// next returns the script's next output line, failing the test when the
// script ends or stays silent for timeout.
func (s *Spark) next(t testing.TB, timeout time.Duration) string {
	t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			t.Fatalf("testpeer: spark peer exited (if PySpark is missing, %s); its log follows the test's", SparkSetupHint)
		}
		return line
	case <-time.After(timeout):
		t.Fatalf("testpeer: spark peer silent for %s; its log follows the test's", timeout)
	}
	return ""
}

// Run runs steps in order in the session and returns what each reported.
// A failed step fails the test with Spark's error.
func (s *Spark) Run(t testing.TB, steps ...SparkStep) []SparkResult {
	t.Helper()
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatalf("testpeer: encode spark steps: %v", err)
	}
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("testpeer: send spark steps: %v", err)
	}
	var out []SparkResult
	for {
		line := s.next(t, sparkBatchTimeout)
		switch {
		case line == "DONE":
			return out
		case strings.HasPrefix(line, "STEP "):
			var r SparkResult
			if err := json.Unmarshal([]byte(line[len("STEP "):]), &r); err != nil {
				t.Fatalf("testpeer: decode spark step result: %v", err)
			}
			out = append(out, r)
		case strings.HasPrefix(line, "ERROR "):
			t.Fatalf("testpeer: spark step %d of %s failed: %s", len(out)+1, b, line[len("ERROR "):])
		}
	}
}
