package pinot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Controller is an Uploader backed by a Pinot controller's REST API.
type Controller struct {
	base    *url.URL
	client  *http.Client
	headers map[string]string
}

var _ Uploader = (*Controller)(nil)

// NewController returns a client for the controller at baseURL. headers
// (for example Authorization) are sent on every request and never logged.
func NewController(baseURL string, timeout time.Duration, headers map[string]string) (*Controller, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("parse controller URL: invalid URL")
	}
	return &Controller{base: u, client: &http.Client{Timeout: timeout}, headers: headers}, nil
}

func (c *Controller) url(path string, q url.Values) string {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = q.Encode()
	return u.String()
}

// do sends a request and decodes a JSON answer into out (when non-nil).
func (c *Controller) do(ctx context.Context, op, method, target string, body io.Reader, contentType string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, redactURLError(err))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &APIError{Op: op, Status: resp.StatusCode, Body: strings.TrimSpace(string(raw))}
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s: decode answer: %w", op, err)
		}
	}
	return nil
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

func (c *Controller) postJSON(ctx context.Context, op, path string, q url.Values, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return c.do(ctx, op, http.MethodPost, c.url(path, q), bytes.NewReader(b), "application/json", out)
}

// EnsureTable posts the schema (override on) and creates the table if the
// controller does not have it yet. The task block (floe's sync task
// config) is not validated by the controller: Pinot knows no generator for
// the ExternalTableSyncTask type.
func (c *Controller) EnsureTable(ctx context.Context, schema *Schema, table *TableConfig) error {
	if err := c.postJSON(ctx, "create schema "+schema.Name, "/schemas", url.Values{"override": {"true"}}, schema, nil); err != nil {
		return err
	}
	exists, err := c.tableExists(ctx, table.TableName)
	if err != nil || exists {
		return err
	}
	return c.postJSON(ctx, "create table "+table.TableName, "/tables", url.Values{"validationTypesToSkip": {"TASK"}}, table, nil)
}

// tableExists asks for the OFFLINE table config. Controllers answer a
// missing table with 404 or, in older releases, with 200 and "{}".
func (c *Controller) tableExists(ctx context.Context, name string) (bool, error) {
	var out map[string]json.RawMessage
	err := c.do(ctx, "get table "+name, http.MethodGet, c.url("/tables/"+url.PathEscape(name), url.Values{"type": {"offline"}}), nil, "", &out)
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

// ListSegments lists the OFFLINE segments of table, excluding segments
// already replaced through lineage.
func (c *Controller) ListSegments(ctx context.Context, table string) ([]string, error) {
	var out []map[string][]string
	q := url.Values{"type": {"OFFLINE"}, "excludeReplacedSegments": {"true"}}
	if err := c.do(ctx, "list segments of "+table, http.MethodGet, c.url("/segments/"+url.PathEscape(table), q), nil, "", &out); err != nil {
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

// Upload pushes one segment tarball (multipart, exactly one part).
func (c *Controller) Upload(ctx context.Context, table string, seg Segment) error {
	f, err := os.Open(seg.TarPath)
	if err != nil {
		return fmt.Errorf("upload segment %s: %w", seg.Name, err)
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile(seg.Name, filepath.Base(seg.TarPath))
		if err == nil {
			_, err = io.Copy(part, f)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	q := url.Values{"tableName": {table}, "tableType": {"OFFLINE"}}
	return c.do(ctx, "upload segment "+seg.Name, http.MethodPost, c.url("/v2/segments", q), pr, mw.FormDataContentType(), nil)
}

type replaceRequest struct {
	SegmentsFrom []string `json:"segmentsFrom"`
	SegmentsTo   []string `json:"segmentsTo"`
}

// Replace swaps segments atomically through segment lineage. Pure
// additions upload directly: no query can see a partial state of new
// files that replace nothing.
func (c *Controller) Replace(ctx context.Context, table string, from []string, to []Segment) error {
	if len(from) == 0 {
		for _, s := range to {
			if err := c.Upload(ctx, table, s); err != nil {
				return err
			}
		}
		return nil
	}
	names := make([]string, len(to))
	for i, s := range to {
		names[i] = s.Name
	}
	q := url.Values{"type": {"OFFLINE"}, "forceCleanup": {"true"}}
	var started struct {
		ID string `json:"segmentLineageEntryId"`
	}
	op := "start replace segments of " + table
	if err := c.postJSON(ctx, op, "/segments/"+url.PathEscape(table)+"/startReplaceSegments", q, replaceRequest{from, names}, &started); err != nil {
		return err
	}
	for _, s := range to {
		if err := c.Upload(ctx, table, s); err != nil {
			return c.revert(ctx, table, started.ID, err)
		}
	}
	endQ := url.Values{"type": {"OFFLINE"}, "segmentLineageEntryId": {started.ID}}
	if err := c.postJSON(ctx, "end replace segments of "+table, "/segments/"+url.PathEscape(table)+"/endReplaceSegments", endQ, map[string]any{}, nil); err != nil {
		return c.revert(ctx, table, started.ID, err)
	}
	return nil
}

// revert undoes an unfinished lineage entry and returns cause, joined with
// the revert error if the revert failed too.
func (c *Controller) revert(ctx context.Context, table, id string, cause error) error {
	q := url.Values{"type": {"OFFLINE"}, "segmentLineageEntryId": {id}, "forceRevert": {"true"}}
	if err := c.postJSON(ctx, "revert replace segments of "+table, "/segments/"+url.PathEscape(table)+"/revertReplaceSegments", q, map[string]any{}, nil); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// DeleteSegments removes segments immediately (retention 0d).
func (c *Controller) DeleteSegments(ctx context.Context, table string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	q := url.Values{"type": {"OFFLINE"}, "segments": names, "retention": {"0d"}}
	return c.do(ctx, "delete segments of "+table, http.MethodDelete, c.url("/segments/"+url.PathEscape(table), q), nil, "", nil)
}
