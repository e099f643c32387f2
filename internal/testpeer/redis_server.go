package testpeer

import (
	"net"
	"net/url"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RedisServer is a redis-server a test can stop, start again on the same
// port, and freeze (SIGSTOP) and thaw, to play a checkpoint-store outage.
type RedisServer struct {
	// URL is redis://[:password@]127.0.0.1:port/0.
	URL string
	// Addr is 127.0.0.1:port.
	Addr string

	t        testing.TB
	bin, dir string
	port     int
	password string

	mu     sync.Mutex
	p      *Process
	frozen bool
}

// StartRedisServer starts redis-server on a free loopback port, with
// requirepass set when password is not empty. Unlike StartRedis it keeps
// its data across Stop and Start.
func StartRedisServer(t testing.TB, password string) *RedisServer {
	t.Helper()
	r := &RedisServer{t: t, bin: Require(t, "redis-server", RedisInstallHint), dir: t.TempDir(),
		port: FreePort(t), password: password}
	r.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port))
	u := url.URL{Scheme: "redis", Host: r.Addr, Path: "/0"}
	if password != "" {
		u.User = url.UserPassword("", password)
	}
	r.URL = u.String()
	r.Start()
	t.Cleanup(r.Thaw) // a frozen server could not stop
	return r
}

// Start starts the server (again) and waits until it answers.
func (r *RedisServer) Start() {
	r.t.Helper()
	// A save point makes the server write its data when it shuts down and
	// read it back when it starts again.
	args := []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(r.port), "--save", "3600 1", "--appendonly", "no",
		"--dir", r.dir, "--daemonize", "no", "--protected-mode", "yes"}
	if r.password != "" {
		args = append(args, "--requirepass", r.password)
	}
	p := Start(r.t, ProcessSpec{Name: "redis", Cmd: r.bin, Args: args, Dir: r.dir})
	r.mu.Lock()
	r.p = p
	r.mu.Unlock()
	if r.password == "" {
		waitRedisPing(r.t, p, r.Addr, 20*time.Second)
		return
	}
	WaitTCP(r.t, r.Addr, 20*time.Second)
}

// Stop shuts the server down; it saves its data first, and Start reads
// it back.
func (r *RedisServer) Stop() {
	r.Thaw()
	r.mu.Lock()
	p := r.p
	r.mu.Unlock()
	p.Stop()
}

// Freeze stops the server process with SIGSTOP: connections stay open and
// nothing answers, as with a hung server or a network partition.
func (r *RedisServer) Freeze() { r.signal(syscall.SIGSTOP, true) }

// Thaw resumes a frozen server (SIGCONT).
func (r *RedisServer) Thaw() { r.signal(syscall.SIGCONT, false) }

func (r *RedisServer) signal(sig syscall.Signal, frozen bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p == nil || r.frozen == frozen {
		return
	}
	if exited, _ := r.p.Exited(); exited {
		return
	}
	if err := syscall.Kill(r.p.Pid(), sig); err != nil {
		r.t.Errorf("testpeer: signal redis-server: %v", err)
		return
	}
	r.frozen = frozen
}
