package testpeer

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RedisInstallHint tells a developer how to get redis-server.
const RedisInstallHint = "scripts/setup-redis.sh (Debian's redis-server via apt)"

// StartRedis starts a throw-away redis-server on a free 127.0.0.1 port
// with persistence off, waits until it answers PING, and returns its
// redis:// URL. The server is stopped when the test ends.
func StartRedis(t testing.TB) string {
	t.Helper()
	bin := Require(t, "redis-server", RedisInstallHint)
	port := FreePort(t)
	dir := t.TempDir()
	p := Start(t, ProcessSpec{
		Name: "redis",
		Cmd:  bin,
		Args: []string{
			"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--save", "", "--appendonly", "no",
			"--dir", dir, "--daemonize", "no", "--protected-mode", "yes",
		},
		Dir: dir,
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	waitRedisPing(t, p, addr, 20*time.Second)
	return "redis://" + addr + "/0"
}

// waitRedisPing waits until the server at addr answers PING with PONG.
func waitRedisPing(t testing.TB, p *Process, addr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		if exited, err := p.Exited(); exited {
			t.Fatalf("testpeer: redis-server exited before answering (%v); log:\n%s",
				err, strings.Join(p.LogTail(40), "\n"))
		}
		if lastErr = pingRedis(addr); lastErr == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("testpeer: redis-server at %s did not answer PING within %s: %v", addr, timeout, lastErr)
}

func pingRedis(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(2 * time.Second)); err != nil {
		return err
	}
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}
