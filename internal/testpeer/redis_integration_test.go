//go:build integration

package testpeer_test

import (
	"bufio"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/testpeer"
)

func TestStartRedis(t *testing.T) {
	raw := testpeer.StartRedis(t)
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "redis" || !strings.HasPrefix(u.Host, "127.0.0.1:") {
		t.Fatalf("StartRedis URL %q: want redis://127.0.0.1:port (%v)", raw, err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatalf("dial %s: %v", u.Host, err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("CONFIG GET appendonly\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	var lines []string
	for range 5 {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSpace(l))
	}
	if lines[4] != "no" {
		t.Fatalf("appendonly = %q, want no (reply %q)", lines[4], lines)
	}
}
