//go:build integration

package e2e

import (
	"net"
	"sync"
	"testing"
)

// proxy forwards TCP connections to a target; cut makes it stop moving
// bytes in both directions (a network partition: connections stay open,
// nothing arrives) until heal.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cond   *sync.Cond
	cutOff bool
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	p.cond = sync.NewCond(&p.mu)
	t.Cleanup(func() { p.heal(); ln.Close() })
	go p.accept()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

// pipe copies src to dst, holding every chunk while the proxy is cut.
func (p *proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.wait()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) wait() {
	p.mu.Lock()
	for p.cutOff {
		p.cond.Wait()
	}
	p.mu.Unlock()
}

func (p *proxy) cut() {
	p.mu.Lock()
	p.cutOff = true
	p.mu.Unlock()
}

func (p *proxy) heal() {
	p.mu.Lock()
	p.cutOff = false
	p.cond.Broadcast()
	p.mu.Unlock()
}
