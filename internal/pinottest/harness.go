package pinottest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ErrNotBuilt means the harness classes or libraries are missing.
var ErrNotBuilt = errors.New("pinot harness not built: run scripts/setup-pinot.sh")

// ErrHarness means the harness JVM failed (bad usage, crash, timeout).
var ErrHarness = errors.New("pinot harness failed")

// DefaultTimeout bounds one harness JVM run.
const DefaultTimeout = 5 * time.Minute

// MainClass is the harness entry point.
const MainClass = "dev.floe.harness.Main"

// JVMFlags returns the flags every harness JVM gets: a 1 GiB heap, and the
// module opens Pinot needs for memory-mapped buffers on Java 17.
func JVMFlags() []string {
	return []string{
		"-Xmx1g", "-XX:+UseSerialGC",
		"--add-opens=java.base/java.nio=ALL-UNNAMED",
		"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-opens=java.base/java.lang=ALL-UNNAMED",
		"--add-opens=java.base/java.util=ALL-UNNAMED",
		"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
		"--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
	}
}

// Harness runs the Pinot harness CLI. It is safe for concurrent use.
type Harness struct {
	// Java is the java binary.
	Java string
	// Classpath is the harness classpath (classes + target/lib/*).
	Classpath string
	// Timeout bounds each JVM run (DefaultTimeout when zero).
	Timeout time.Duration
}

// New locates the built harness or fails the test (never skips it).
func New(t testing.TB) *Harness {
	t.Helper()
	h, err := Locate()
	if err != nil {
		t.Fatalf("pinottest: %v", err)
	}
	return h
}

// Locate finds the repository root (walking up from the working directory
// to go.mod), checks that the harness is built and that java exists.
func Locate() (*Harness, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("locate harness: %w", err)
	}
	root, err := repoRoot(wd)
	if err != nil {
		return nil, fmt.Errorf("locate harness: %w", err)
	}
	return LocateIn(root)
}

// LocateIn is Locate for a known repository root.
func LocateIn(root string) (*Harness, error) {
	target := filepath.Join(root, "tools", "pinot-harness", "target")
	classes := filepath.Join(target, "classes")
	lib := filepath.Join(target, "lib")
	if _, err := os.Stat(filepath.Join(classes, "dev", "floe", "harness", "Main.class")); err != nil {
		return nil, fmt.Errorf("%w (missing %s)", ErrNotBuilt, classes)
	}
	jars, _ := filepath.Glob(filepath.Join(lib, "pinot-segment-local-*.jar"))
	if len(jars) == 0 {
		return nil, fmt.Errorf("%w (no Pinot jars in %s)", ErrNotBuilt, lib)
	}
	java, err := findJava()
	if err != nil {
		return nil, err
	}
	cp := classes + string(os.PathListSeparator) + filepath.Join(lib, "*")
	return &Harness{Java: java, Classpath: cp}, nil
}

func findJava() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: no java on PATH (scripts/setup-pinot.sh installs openjdk-17-jdk-headless)", ErrNotBuilt)
	}
	return p, nil
}

func repoRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

// Command returns an exec.Cmd that runs one harness subcommand
// ("read", "create", "validate-schema", "validate-table-config", "tar")
// in its own process group; cancelling ctx kills the whole group.
func (h *Harness) Command(ctx context.Context, args ...string) *exec.Cmd {
	argv := append(JVMFlags(), "-cp", h.Classpath, MainClass)
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, h.Java, argv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// result is the output of one harness run.
type result struct {
	stdout []byte
	stderr string
	exit   int
}

// run runs a subcommand with the harness timeout and collects stdout.
// Exit status 1 ("ran, found problems") is returned in result, not as an
// error; anything else non-zero is ErrHarness with the JVM's stderr attached.
func (h *Harness) run(ctx context.Context, args ...string) (result, error) {
	var stdout bytes.Buffer
	res, err := h.stream(ctx, func(r io.Reader) error {
		_, err := stdout.ReadFrom(r)
		return err
	}, args...)
	res.stdout = stdout.Bytes()
	return res, err
}

// stream runs a subcommand and hands its stdout to consume while the JVM
// runs, so large dumps are decoded without buffering them whole. An error
// from consume is returned after the JVM exits (its output is drained).
func (h *Harness) stream(ctx context.Context, consume func(io.Reader) error, args ...string) (result, error) {
	timeout := h.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var stderr bytes.Buffer
	cmd := h.Command(ctx, args...)
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, fmt.Errorf("%w: %s: %w", ErrHarness, args[0], err)
	}
	if err := cmd.Start(); err != nil {
		return result{}, fmt.Errorf("%w: start %s: %w", ErrHarness, args[0], err)
	}
	cerr := consume(stdout)
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	res := result{stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 1 && ctx.Err() == nil:
		res.exit = 1
	case ctx.Err() != nil:
		return res, fmt.Errorf("%w: %s %s: %w (after %s)\n%s", ErrHarness, args[0], strings.Join(args[1:], " "),
			ctx.Err(), timeout, tail(res.stderr))
	default:
		return res, fmt.Errorf("%w: %s %s: %w\n%s", ErrHarness, args[0], strings.Join(args[1:], " "), err,
			tail(res.stderr))
	}
	if cerr != nil {
		return res, fmt.Errorf("%s: %w\n%s", args[0], cerr, tail(res.stderr))
	}
	return res, nil
}

// tail keeps the last 200 lines of JVM stderr for error messages.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 200 {
		lines = append([]string{"..."}, lines[len(lines)-200:]...)
	}
	return "--- harness stderr ---\n" + strings.Join(lines, "\n") + "\n--- end of harness stderr ---"
}
