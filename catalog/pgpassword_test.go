package catalog_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/floehq/floe/catalog"
)

// pgPasswordPeer is a Postgres server that asks for a cleartext password
// and records what it was sent.
type pgPasswordPeer struct {
	addr string
	mu   sync.Mutex
	got  []string
}

func startPGPasswordPeer(t *testing.T) *pgPasswordPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &pgPasswordPeer{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *pgPasswordPeer) serve(c net.Conn) {
	defer c.Close()
	rd := bufio.NewReader(c)
	for {
		msg, err := pgMessage(rd)
		if err != nil {
			return
		}
		if len(msg) >= 4 && binary.BigEndian.Uint32(msg) == 80877103 { // SSLRequest
			_, _ = c.Write([]byte("N"))
			continue
		}
		break
	}
	_, _ = c.Write([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 3}) // AuthenticationCleartextPassword
	if typ, err := rd.ReadByte(); err != nil || typ != 'p' {
		return
	}
	pw, err := pgMessage(rd)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.got = append(p.got, string(pw[:max(0, len(pw)-1)]))
	p.mu.Unlock()
	body := []byte("SFATAL\x00C28P01\x00Mpassword authentication failed\x00\x00")
	hdr := []byte{'E', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(body)+4))
	_, _ = c.Write(append(hdr, body...))
}

func pgMessage(rd *bufio.Reader) ([]byte, error) {
	var n uint32
	if err := binary.Read(rd, binary.BigEndian, &n); err != nil || n < 4 || n > 1<<16 {
		return nil, io.ErrUnexpectedEOF
	}
	buf := make([]byte, n-4)
	_, err := io.ReadFull(rd, buf)
	return buf, err
}

func (p *pgPasswordPeer) passwords() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

// A connection without secrets.password sends no password floe's own
// environment holds (PGPASSWORD, a password file), in either DSN form; one
// with it sends exactly that.
func TestOpen_PostgresPasswordOnlyFromSecrets(t *testing.T) {
	peer := startPGPasswordPeer(t)
	host, port, _ := net.SplitHostPort(peer.addr)
	passfile := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(passfile, []byte("*:*:*:*:pgpass-file-pw-1a2b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSWORD", "pg-env-pw-3c4d5e")
	t.Setenv("PGPASSFILE", passfile)
	for _, props := range []map[string]string{
		{"uri": "postgres://floe@" + peer.addr + "/lake?sslmode=disable"},
		{"dialect": "postgres", "uri": "host=" + host + " port=" + port + " user=floe dbname=lake sslmode=disable"},
	} {
		_, _ = catalog.Open(t.Context(), catalog.Config{Name: "pg", Type: catalog.TypeSQL, Props: props}, discard())
		_, _ = catalog.Open(t.Context(), catalog.Config{Name: "pg", Type: catalog.TypeSQL, Props: props,
			Secrets: map[string]string{"password": "the-secret-pw-6f7a"}}, discard())
	}
	got := peer.passwords()
	want := []string{"", "the-secret-pw-6f7a", "", "the-secret-pw-6f7a"}
	if len(got) != len(want) {
		t.Fatalf("peer was sent %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("peer was sent %q, want %q", got, want)
		}
	}
}
