package catalog_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
)

// mysqlPeer is a MySQL server as a hostile one behaves: it accepts any
// login and answers every query with a LOAD DATA LOCAL INFILE request for
// the file it wants, recording what the client sends back. It speaks the
// literal wire protocol (handshake v10, OK packets, the 0xFB request).
type mysqlPeer struct {
	addr string
	want string // the local file it asks for

	mu       sync.Mutex
	accepted int    // TCP connections accepted
	received []byte // every byte clients sent after their login
	file     []byte // what a client sent for the file request
}

func startMySQLPeer(t *testing.T, want string) *mysqlPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &mysqlPeer{addr: ln.Addr().String(), want: want}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.accepted++
			p.mu.Unlock()
			go p.serve(c)
		}
	}()
	return p
}

// stats returns how many connections the peer took and the file bytes it
// received.
func (p *mysqlPeer) stats() (accepted int, file []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted, append([]byte(nil), p.file...)
}

func (p *mysqlPeer) serve(c net.Conn) {
	defer c.Close()
	rd := bufio.NewReader(c)
	if writePacket(c, 0, handshakeV10()) != nil {
		return
	}
	if _, _, err := readPacket(rd); err != nil { // the login
		return
	}
	if writePacket(c, 2, okPacket()) != nil {
		return
	}
	for {
		_, body, err := readPacket(rd)
		if err != nil || len(body) == 0 {
			return
		}
		p.note(body, false)
		switch body[0] {
		case 0x01: // COM_QUIT
			return
		case 0x03: // COM_QUERY: ask for the file
			if writePacket(c, 1, append([]byte{0xFB}, p.want...)) != nil {
				return
			}
			seq, ok := p.readFile(rd)
			if !ok || writePacket(c, seq+1, okPacket()) != nil {
				return
			}
		default: // COM_PING and the rest
			if writePacket(c, 1, okPacket()) != nil {
				return
			}
		}
	}
}

// readFile reads the packets of a LOCAL INFILE answer up to the empty
// one, whose sequence number it returns.
func (p *mysqlPeer) readFile(rd *bufio.Reader) (byte, bool) {
	for {
		seq, body, err := readPacket(rd)
		if err != nil {
			return 0, false
		}
		if len(body) == 0 {
			return seq, true
		}
		p.note(body, true)
	}
}

func (p *mysqlPeer) note(b []byte, file bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.received = append(p.received, b...)
	if file {
		p.file = append(p.file, b...)
	}
}

// handshakeV10 is the server greeting: protocol 41, secure connection,
// plugin auth and LOCAL INFILE capabilities, mysql_native_password.
func handshakeV10() []byte {
	b := []byte{0x0a}
	b = append(b, "8.0.0-floe-test\x00"...)
	b = append(b, 1, 0, 0, 0)          // connection id
	b = append(b, "abcdefgh"...)       // auth data part 1
	b = append(b, 0)                   // filler
	b = append(b, 0x89, 0x82)          // capabilities (low): long password, connect with db, local files, 41, secure
	b = append(b, 0x21)                // charset utf8
	b = append(b, 0x02, 0x00)          // status: autocommit
	b = append(b, 0x08, 0x00)          // capabilities (high): plugin auth
	b = append(b, 21)                  // auth data length
	b = append(b, make([]byte, 10)...) // reserved
	b = append(b, "ijklmnopqrst\x00"...)
	return append(b, "mysql_native_password\x00"...)
}

func okPacket() []byte { return []byte{0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00} }

func writePacket(w io.Writer, seq byte, body []byte) error {
	hdr := []byte{byte(len(body)), byte(len(body) >> 8), byte(len(body) >> 16), seq}
	_, err := w.Write(append(hdr, body...))
	return err
}

func readPacket(rd *bufio.Reader) (seq byte, body []byte, err error) {
	var hdr [4]byte
	if _, err := io.ReadFull(rd, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(append(hdr[:3:3], 0))
	body = make([]byte, n)
	_, err = io.ReadFull(rd, body)
	return hdr[3], body, err
}
