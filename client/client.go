package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultAddr is where a floe listens by default.
const DefaultAddr = "http://127.0.0.1:8080"

// DefaultTimeout bounds one request when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// maxAnswerBytes bounds the body of one answer read.
const maxAnswerBytes = 64 << 20

// Options configures a Client.
type Options struct {
	// Token is the bearer token (read token for reads, admin for writes);
	// empty sends none.
	Token string
	// Timeout bounds each request (DefaultTimeout when zero).
	Timeout time.Duration
	// HTTPClient, when set, sends the requests (its Timeout is left alone).
	HTTPClient *http.Client
}

// Client calls one floe's API. It is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	hc    *http.Client
	// strict refuses answer fields the client's types do not hold; the
	// tests set it to prove the types mirror a real floe's answers.
	strict bool
}

// New returns a client of the floe at addr ("http://host:port", or
// "host:port" meaning http).
func New(addr string, opts Options) (*Client, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	u, err := url.Parse(strings.TrimRight(addr, "/"))
	if err != nil {
		return nil, fmt.Errorf("parse address %q: %w", addr, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("parse address %s: want http://host:port or https://host:port", u.Redacted())
	}
	hc := opts.HTTPClient
	if hc == nil {
		timeout := opts.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		hc = &http.Client{Timeout: timeout}
	}
	return &Client{base: u, token: opts.Token, hc: hc}, nil
}

// Addr is the address the client calls (without any password).
func (c *Client) Addr() string { return c.base.Redacted() }

// String describes the client without its token (K1).
func (c *Client) String() string { return "floe at " + c.Addr() }

// get decodes the JSON answer of GET path?query into out.
func (c *Client) get(ctx context.Context, path string, query url.Values, out any) error {
	return c.do(ctx, http.MethodGet, path, query, out)
}

// post sends an empty JSON object to path and decodes the answer into out.
func (c *Client) post(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodPost, path, nil, out)
}

func (c *Client) do(ctx context.Context, method, path string, query url.Values, out any) error {
	u := c.base.String() + path // path is escaped already (tablePath)
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var body io.Reader
	if method != http.MethodGet {
		body = bytes.NewReader([]byte("{}"))
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("call floe at %s: %w", c.Addr(), scrubURLError(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return fmt.Errorf("read answer of %s %s: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return answerError(method, path, resp.StatusCode, raw)
	}
	if out == nil || len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := c.decode(raw, out); err != nil {
		return fmt.Errorf("decode answer of %s %s: %w", method, path, err)
	}
	return nil
}

// decode reads one answer into out (refusing unknown fields when strict).
func (c *Client) decode(raw []byte, out any) error {
	if !c.strict {
		return json.Unmarshal(raw, out)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(out)
}

// answerError builds the *Error of a non-2xx answer.
func answerError(method, path string, status int, raw []byte) error {
	var body struct {
		Error string `json:"error"`
	}
	msg := ""
	if json.Unmarshal(raw, &body) == nil {
		msg = body.Error
	}
	return &Error{Method: method, Path: path, Status: status, Message: msg}
}

// scrubURLError keeps a *url.Error's cause without its URL, which the
// caller names already (and which may carry a password).
func scrubURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// tablePath is the path of a table's resource, name escaped.
func tablePath(name string, rest ...string) string {
	p := "/api/v1/tables/" + url.PathEscape(name)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}
