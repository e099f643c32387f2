package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Echo peers fail every request with an error that repeats everything they
// received (method, URL, every header, the body), in the error format of
// the protocol the client speaks, the way careless servers answer.

// echoStyle is the error format an echo peer answers in.
type echoStyle int

const (
	echoIcebergREST echoStyle = iota // {"error":{"message":...}} (and OAuth token errors)
	echoAWSJSON                      // Glue, S3 Tables: {"__type":...,"message":...}
	echoAWSXML                       // S3 and STS: <Error><Code>..</Code><Message>..</Message></Error>
	echoPlain                        // Pinot controller: the text itself
)

// echoed is what a request sent, as one line.
func echoed(r *http.Request) string {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var b strings.Builder
	fmt.Fprintf(&b, "you sent %s %s;", r.Method, r.URL.String())
	for k, vs := range r.Header {
		fmt.Fprintf(&b, " %s: %s;", k, strings.Join(vs, ","))
	}
	fmt.Fprintf(&b, " body: %s", body)
	return b.String()
}

func echoPeer(t *testing.T, style echoStyle) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msg := echoed(r)
		switch style {
		case echoIcebergREST:
			w.Header().Set("Content-Type", "application/json")
			if strings.Contains(r.URL.Path, "token") {
				w.WriteHeader(http.StatusUnauthorized)
				_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": msg})
				return
			}
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "NotAuthorizedException", "code": 401}})
		case echoAWSJSON:
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.Header().Set("X-Amzn-Errortype", "AccessDeniedException")
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(map[string]string{"__type": "AccessDeniedException", "message": msg, "Message": msg})
		case echoAWSXML:
			var esc strings.Builder
			_ = xml.EscapeText(&esc, []byte(msg))
			w.Header().Set("Content-Type", "text/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, `<?xml version="1.0"?><ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>`+
				`<Message>%s</Message></Error><Code>AccessDenied</Code><Message>%s</Message><RequestId>x</RequestId></ErrorResponse>`,
				esc.String(), esc.String())
		default:
			http.Error(w, msg, http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// echoPostgres is a Postgres server that asks for a cleartext password and
// refuses it, repeating it in the error (as a careless proxy might). It
// returns its address.
func echoPostgres(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveEchoPostgres(c)
		}
	}()
	return ln.Addr().String()
}

func serveEchoPostgres(c net.Conn) {
	defer c.Close()
	rd := bufio.NewReader(c)
	for {
		msg, err := readStartup(rd)
		if err != nil {
			return
		}
		if len(msg) >= 4 && binary.BigEndian.Uint32(msg) == 80877103 { // SSLRequest
			_, _ = c.Write([]byte("N"))
			continue
		}
		break
	}
	// AuthenticationCleartextPassword
	_, _ = c.Write([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 3})
	typ, err := rd.ReadByte()
	if err != nil || typ != 'p' {
		return
	}
	pw, err := readStartup(rd)
	if err != nil {
		return
	}
	text := "password authentication failed: you sent " + strings.TrimRight(string(pw), "\x00")
	var body []byte
	for _, f := range []struct {
		code byte
		val  string
	}{{'S', "FATAL"}, {'V', "FATAL"}, {'C', "28P01"}, {'M', text}} {
		body = append(append(append(body, f.code), f.val...), 0)
	}
	body = append(body, 0)
	hdr := []byte{'E', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(body)+4))
	_, _ = c.Write(append(hdr, body...))
}

// readStartup reads one length-prefixed message body.
func readStartup(rd *bufio.Reader) ([]byte, error) {
	var n uint32
	if err := binary.Read(rd, binary.BigEndian, &n); err != nil || n < 4 || n > 1<<16 {
		return nil, fmt.Errorf("bad length %d: %v", n, err)
	}
	buf := make([]byte, n-4)
	_, err := io.ReadFull(rd, buf)
	return buf, err
}
