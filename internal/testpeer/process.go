package testpeer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// StopGrace is how long a process gets to exit after SIGTERM before it is
// killed.
const StopGrace = 5 * time.Second

// logTailLines is how many trailing log lines a failed test prints.
const logTailLines = 200

// ProcessSpec describes a peer process to start.
type ProcessSpec struct {
	// Name labels the process in logs and failure messages ("redis").
	Name string
	// Cmd is the binary (looked up on PATH when it has no slash).
	Cmd  string
	Args []string
	// Env is added to the test's environment ("KEY=value" entries).
	Env []string
	// Dir is the working directory ("" = the test's working directory).
	Dir string
	// Stdin feeds the process (nil: no input). Stdout receives its
	// standard output (nil: the log file, with stderr); stderr always goes
	// to the log file.
	Stdin  io.Reader
	Stdout io.Writer
	// Root, when set, is the root directory the process sees (chroot;
	// needs root), as a container runtime gives an image's process; Dir
	// is then inside it.
	Root string
	// Credential, when set, is the user and group the process runs as.
	Credential *syscall.Credential
	// OnlyEnv: the process gets Env alone, not the test's environment.
	OnlyEnv bool
}

// Process is a running peer started by Start.
type Process struct {
	Name    string
	LogPath string
	cmd     *exec.Cmd
	logFile *os.File
	done    chan struct{}
	waitErr error
	stop    sync.Once
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testpeer: find free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatalf("testpeer: close probe listener: %v", err)
	}
	return port
}

// Start launches spec, capturing stdout and stderr to a log file under
// t.TempDir(). A cleanup hook stops the process and, if the test failed,
// writes the last lines of its log to the test log.
func Start(t testing.TB, spec ProcessSpec) *Process {
	t.Helper()
	if spec.Name == "" {
		spec.Name = filepath.Base(spec.Cmd)
	}
	logPath := filepath.Join(t.TempDir(), spec.Name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("testpeer: create log for %s: %v", spec.Name, err)
	}
	cmd := exec.Command(spec.Cmd, spec.Args...)
	cmd.Env = append(os.Environ(), spec.Env...)
	if spec.OnlyEnv {
		cmd.Env = spec.Env
	}
	cmd.Dir = spec.Dir
	cmd.Stdin = spec.Stdin
	cmd.Stdout = f
	if spec.Stdout != nil {
		cmd.Stdout = spec.Stdout
	}
	cmd.Stderr = f
	// Own process group so the stop signal reaches children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Chroot: spec.Root, Credential: spec.Credential}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		t.Fatalf("testpeer: start %s (%s): %v", spec.Name, spec.Cmd, err)
	}
	p := &Process{Name: spec.Name, LogPath: logPath, cmd: cmd, logFile: f, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			p.dumpLog(t)
		}
	})
	return p
}

// Exited reports whether the process has already exited, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stop sends SIGTERM to the process group, waits up to StopGrace, then
// sends SIGKILL. It is safe to call more than once.
func (p *Process) Stop() {
	p.stop.Do(func() {
		pgid := -p.cmd.Process.Pid
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(StopGrace):
			_ = syscall.Kill(pgid, syscall.SIGKILL)
			<-p.done
		}
		_ = p.logFile.Close()
	})
}

// Kill sends SIGKILL to the process group and waits for it to exit: a
// crash, with no chance to clean up.
func (p *Process) Kill() {
	p.stop.Do(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		_ = p.logFile.Close()
	})
}

// Signal sends sig (SIGSTOP to freeze, SIGCONT to thaw) to the process
// group.
func (p *Process) Signal(sig syscall.Signal) error {
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil {
		return fmt.Errorf("testpeer: signal %s to %s: %w", sig, p.Name, err)
	}
	return nil
}

// LogTail returns up to n trailing lines of the process log.
func (p *Process) LogTail(n int) []string {
	f, err := os.Open(p.LogPath)
	if err != nil {
		return []string{fmt.Sprintf("(cannot read %s log: %v)", p.Name, err)}
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return lines
}

func (p *Process) dumpLog(t testing.TB) {
	lines := p.LogTail(logTailLines)
	t.Logf("--- last %d lines of %s log (%s) ---\n%s\n--- end of %s log ---",
		len(lines), p.Name, p.LogPath, strings.Join(lines, "\n"), p.Name)
}

// WaitTCP waits until addr ("host:port") accepts TCP connections, failing
// the test after timeout.
func WaitTCP(t testing.TB, addr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		lastErr = err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("testpeer: %s not accepting TCP after %s: %v", addr, timeout, lastErr)
}

// WaitHTTP polls url with GET until okFn accepts the response, failing the
// test after timeout. A nil okFn accepts any 2xx status. The body is
// closed by WaitHTTP after okFn returns.
func WaitHTTP(t testing.TB, url string, timeout time.Duration, okFn func(*http.Response) bool) {
	t.Helper()
	if okFn == nil {
		okFn = func(r *http.Response) bool { return r.StatusCode/100 == 2 }
	}
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(timeout)
	lastErr := errors.New("no attempt made")
	for time.Now().Before(deadline) {
		ok, err := probeHTTP(client, url, okFn)
		if ok {
			return
		}
		lastErr = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("testpeer: %s not ready after %s: %v", url, timeout, lastErr)
}

func probeHTTP(client *http.Client, url string, okFn func(*http.Response) bool) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), client.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, fmt.Errorf("build request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if okFn(resp) {
		return true, nil
	}
	return false, fmt.Errorf("not ready: HTTP %s", resp.Status)
}

// RepoRoot returns the directory holding go.mod, walking up from the
// test's working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testpeer: getwd: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testpeer: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Require returns the path of binary, failing the test (never skipping it)
// with installHint when it is not on PATH.
func Require(t testing.TB, binary, installHint string) string {
	t.Helper()
	path, err := exec.LookPath(binary)
	if err != nil {
		t.Fatalf("testpeer: required binary %q not found on PATH: install it with %s", binary, installHint)
	}
	return path
}
