package pinot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/floehq/floe/internal/sleep"
	"github.com/floehq/floe/pinot/spec"
)

// Controller is an Uploader backed by a Pinot controller's REST API
// (pinot-segment-format.md §8). Every request is retried under Retry; every
// mutating attempt first asks the Guard in its context.
type Controller struct {
	base    *url.URL
	client  *http.Client
	headers map[string]string
	scrub   scrubber
	// Retry bounds the retries of each request; NewController sets
	// DefaultRetryPolicy.
	Retry RetryPolicy
	// DeepStore, when set, makes Upload store the tarball there and send
	// the controller a metadata push; nil means tar push.
	DeepStore DeepStore
	// Observer, when set, hears of every request attempt (observe.go).
	Observer CallObserver
}

var _ Uploader = (*Controller)(nil)

// NewController returns a client for the controller at baseURL. timeout
// bounds each request attempt. headers (for example Authorization) are
// sent on every request and never appear in errors.
func NewController(baseURL string, timeout time.Duration, headers map[string]string, opts ...Option) (*Controller, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("parse controller URL: invalid URL")
	}
	s := newScrubber(headers)
	return &Controller{
		base: u, client: httpClient(timeout, s, opts), headers: headers, scrub: s,
		Retry: DefaultRetryPolicy(),
	}, nil
}

// request is one controller call; body, when set, makes a fresh body for
// every attempt.
type request struct {
	op     string
	method string
	path   string
	query  url.Values
	header map[string]string
	body   func() (io.ReadCloser, string, error)
}

func (c *Controller) url(path string, q url.Values) string {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = q.Encode()
	return u.String()
}

// sendOnce makes one attempt of r and decodes a JSON answer into out (when
// non-nil).
func (c *Controller) sendOnce(ctx context.Context, r request, out any) error {
	var body io.ReadCloser
	var contentType string
	if r.body != nil {
		var err error
		if body, contentType, err = r.body(); err != nil {
			return permanent(fmt.Errorf("%s: %w", r.op, err))
		}
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.url(r.path, r.query), body)
	if err != nil {
		if body != nil {
			body.Close()
		}
		return permanent(fmt.Errorf("%s: %w", r.op, err))
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", r.op, redactURLError(err))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &APIError{Op: r.op, Status: resp.StatusCode, Body: c.scrub.scrub(strings.TrimSpace(string(raw)))}
	}
	if out != nil && len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s: decode answer: %w", r.op, err)
		}
	}
	return nil
}

// read sends a request that changes nothing, with retries.
func (c *Controller) read(ctx context.Context, r request, out any) error {
	return call{policy: c.Retry}.run(ctx, func(ctx context.Context) error { return c.send(ctx, r, out) })
}

// redactURLError drops the URL's user info from net/http errors.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.User != nil {
			u.User = nil
			return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
	}
	return err
}

// jsonBody returns a body factory for v encoded as JSON.
func jsonBody(v any) (func() (io.ReadCloser, string, error), error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return func() (io.ReadCloser, string, error) {
		return io.NopCloser(bytes.NewReader(b)), "application/json", nil
	}, nil
}

// EnsureTable posts the schema (override on) and creates the table if the
// controller does not have it yet. The task block (floe's sync task
// config) is not validated by the controller: Pinot knows no generator for
// the ExternalTableSyncTask type.
func (c *Controller) EnsureTable(ctx context.Context, schema *spec.Schema, table *spec.TableConfig) error {
	sb, err := jsonBody(schema)
	if err != nil {
		return fmt.Errorf("encode schema %s: %w", schema.Name, err)
	}
	w := Write{Op: OpUpdateSchema, Table: table.TableName, Destructive: true}
	r := request{op: "create schema " + schema.Name, method: http.MethodPost, path: "/schemas",
		query: url.Values{"override": {"true"}}, body: sb}
	if err := c.write(ctx, w, r, nil); err != nil {
		return err
	}
	exists, err := c.tableExists(ctx, table.TableName)
	if err != nil || exists {
		return err
	}
	tb, err := jsonBody(table)
	if err != nil {
		return fmt.Errorf("encode table config %s: %w", table.TableName, err)
	}
	r = request{op: "create table " + table.TableName, method: http.MethodPost, path: "/tables",
		query: url.Values{"validationTypesToSkip": {"TASK"}}, body: tb}
	err = c.write(ctx, Write{Op: OpCreateTable, Table: table.TableName}, r, nil)
	var api *APIError
	if errors.As(err, &api) && api.Status == http.StatusConflict {
		return nil // created by an attempt whose answer was lost, or by another replica
	}
	return err
}

// write sends a mutating request with retries, asking the guard in ctx
// before every attempt.
func (c *Controller) write(ctx context.Context, w Write, r request, out any) error {
	return call{policy: c.Retry, write: &w}.run(ctx, func(ctx context.Context) error { return c.send(ctx, r, out) })
}

// tableExists asks for the OFFLINE table config. Controllers answer a
// missing table with 404 or, in older releases, with 200 and "{}".
func (c *Controller) tableExists(ctx context.Context, name string) (bool, error) {
	var out map[string]json.RawMessage
	r := request{op: "get table " + name, method: http.MethodGet, path: "/tables/" + url.PathEscape(name),
		query: url.Values{"type": {"offline"}}}
	err := c.read(ctx, r, &out)
	var api *APIError
	if errors.As(err, &api) && api.Status == http.StatusNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, ok := out["OFFLINE"]
	return ok, nil
}

// ListSegments lists the OFFLINE segments of table that queries see:
// segments replaced through lineage and the To segments of open
// replacements are left out (excludeReplacedSegments).
func (c *Controller) ListSegments(ctx context.Context, table string) ([]string, error) {
	return c.listSegments(ctx, table, true)
}

func (c *Controller) listSegments(ctx context.Context, table string, excludeReplaced bool) ([]string, error) {
	var out []map[string][]string
	q := url.Values{"type": {"OFFLINE"}}
	if excludeReplaced {
		q.Set("excludeReplacedSegments", "true")
	}
	r := request{op: "list segments of " + table, method: http.MethodGet, path: "/segments/" + url.PathEscape(table), query: q}
	if err := c.read(ctx, r, &out); err != nil {
		var api *APIError
		if errors.As(err, &api) && api.Status == http.StatusNotFound {
			return nil, fmt.Errorf("list segments of %s: %w", table, ErrTableMissing)
		}
		return nil, err
	}
	var names []string
	for _, m := range out {
		names = append(names, m["OFFLINE"]...)
	}
	return names, nil
}

// DeleteSegments removes segments at once (retention 0d), waits until the
// controller no longer lists them, then removes their deep-store objects,
// which the controller removes only when its data dir is the deep store
// (Pinot 1.4+). It posts the names to /segments/{table}/delete: DELETE
// /segments/{table} ignores a segments list and deletes every segment of
// the table. Deleting a segment that is already gone succeeds.
func (c *Controller) DeleteSegments(ctx context.Context, table string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	body, err := jsonBody(names)
	if err != nil {
		return fmt.Errorf("encode segment names: %w", err)
	}
	w := Write{Op: OpDeleteSegments, Table: table, Segments: names, Destructive: true}
	r := request{op: "delete segments of " + table, method: http.MethodPost, path: "/segments/" + url.PathEscape(table) + "/delete",
		query: url.Values{"retention": {"0d"}}, body: body}
	if err := c.write(ctx, w, r, nil); err != nil {
		return err
	}
	if err := c.waitUnlisted(ctx, table, names); err != nil {
		return err
	}
	return c.deleteObjects(ctx, table, names)
}

// waitUnlisted polls until the controller lists none of names: it drops a
// deleted segment from the ideal state at once, but from its segment list
// only once the servers have unloaded it.
func (c *Controller) waitUnlisted(ctx context.Context, table string, names []string) error {
	deadline := time.Now().Add(max(c.Retry.MaxElapsed, 10*time.Second))
	wait := 100 * time.Millisecond
	for {
		listed, err := c.listSegments(ctx, table, false)
		if err != nil {
			return fmt.Errorf("delete segments of %s: %w", table, err)
		}
		left := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !slices.Contains(listed, n) })
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("delete segments of %s: %s still listed after the delete", table, strings.Join(left, ", "))
		}
		if err := sleep.For(ctx, wait); err != nil {
			return err
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// deleteObjects removes the deep-store objects of segments Pinot no longer
// holds.
func (c *Controller) deleteObjects(ctx context.Context, table string, names []string) error {
	if c.DeepStore == nil || len(names) == 0 {
		return nil
	}
	if err := c.DeepStore.Delete(ctx, table, names); err != nil {
		return fmt.Errorf("segments of %s left Pinot; remove their deep-store objects: %w", table, err)
	}
	return nil
}
