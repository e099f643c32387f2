package testpeer_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floehq/floe/internal/testpeer"
)

func TestFreePort(t *testing.T) {
	port := testpeer.FreePort(t)
	if port <= 0 || port > 65535 {
		t.Fatalf("FreePort = %d, want 1..65535", port)
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("port %d from FreePort not bindable: %v", port, err)
	}
	_ = l.Close()
}

func TestStart_CapturesOutputAndStops(t *testing.T) {
	sh := testpeer.Require(t, "sh", "apt-get install -y dash")
	p := testpeer.Start(t, testpeer.ProcessSpec{
		Name: "echoer",
		Cmd:  sh,
		Args: []string{"-c", `echo "hello $GREETING"; exec sleep 60`},
		Env:  []string{"GREETING=floe"},
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := p.LogTail(10)
		if len(lines) > 0 && lines[0] == "hello floe" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log never showed greeting; tail: %q", lines)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if exited, err := p.Exited(); exited {
		t.Fatalf("process exited early: %v", err)
	}
	p.Stop()
	if exited, _ := p.Exited(); !exited {
		t.Fatal("process still running after Stop")
	}
}

func TestProcess_LogTail(t *testing.T) {
	sh := testpeer.Require(t, "sh", "apt-get install -y dash")
	p := testpeer.Start(t, testpeer.ProcessSpec{
		Name: "counter",
		Cmd:  sh,
		Args: []string{"-c", `i=1; while [ $i -le 300 ]; do echo line$i; i=$((i+1)); done`},
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if exited, _ := p.Exited(); exited {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("counter did not exit")
		}
		time.Sleep(20 * time.Millisecond)
	}
	tail := p.LogTail(200)
	if len(tail) != 200 || tail[0] != "line101" || tail[199] != "line300" {
		t.Fatalf("LogTail(200) = %d lines, first %q last %q", len(tail), first(tail), last(tail))
	}
}

func TestWaitTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	testpeer.WaitTCP(t, l.Addr().String(), 5*time.Second)
}

func TestWaitHTTP(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ready"))
	}))
	defer srv.Close()
	testpeer.WaitHTTP(t, srv.URL, 10*time.Second, nil)
	if n := calls.Load(); n < 3 {
		t.Fatalf("WaitHTTP returned after %d calls, want >= 3", n)
	}
}

func TestRepoRoot(t *testing.T) {
	root := testpeer.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatalf("RepoRoot %s has no go.mod: %v", root, err)
	}
	if !strings.Contains(string(data), "module github.com/floehq/floe") {
		t.Fatalf("RepoRoot %s holds another module's go.mod", root)
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// fatalRecorder captures a Fatalf instead of failing the real test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestRequire_MissingBinaryFailsWithHint(t *testing.T) {
	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testpeer.Require(rec, "floe-no-such-binary-xyz", "scripts/setup-nothing.sh")
	}()
	<-done
	if !strings.Contains(rec.msg, "floe-no-such-binary-xyz") || !strings.Contains(rec.msg, "scripts/setup-nothing.sh") {
		t.Fatalf("Require failure message %q lacks the binary name or the hint", rec.msg)
	}
}
