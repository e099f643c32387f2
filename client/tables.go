package client

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ListOptions selects and orders tables (GET /api/v1/tables).
type ListOptions struct {
	Page     int      // 1-based; 0 means 1
	PageSize int      // 0: the server's default
	States   []string // overview states; empty: all
	Q        string   // case-insensitive substring of name, source or connection
	Sort     string   // name, state, lastRun, lag, rows; "-" prefix descending; "": name
}

// TablePage is one page of tables.
type TablePage struct {
	Tables   []Table `json:"tables"`
	Page     int     `json:"page"`
	PageSize int     `json:"pageSize"`
	Total    int     `json:"total"`
	Pages    int     `json:"pages"`
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	if o.Page > 0 {
		q.Set("page", strconv.Itoa(o.Page))
	}
	if o.PageSize > 0 {
		q.Set("pageSize", strconv.Itoa(o.PageSize))
	}
	if len(o.States) > 0 {
		q.Set("state", strings.Join(o.States, ","))
	}
	if o.Q != "" {
		q.Set("q", o.Q)
	}
	if o.Sort != "" {
		q.Set("sort", o.Sort)
	}
	return q
}

// ListTables returns one page of tables. A floe that does not page
// answers every table at once (no "pages"): that is one page, filtered and
// sorted here (K3).
func (c *Client) ListTables(ctx context.Context, opts ListOptions) (TablePage, error) {
	if err := validSort(opts.Sort); err != nil {
		return TablePage{}, err
	}
	var p TablePage
	if err := c.get(ctx, "/api/v1/tables", opts.query(), &p); err != nil {
		return TablePage{}, fmt.Errorf("list tables: %w", err)
	}
	if p.Pages == 0 {
		p.Tables = filterTables(p.Tables, opts)
		sortTables(p.Tables, opts.Sort)
		p.Page, p.Pages, p.Total, p.PageSize = 1, 1, len(p.Tables), len(p.Tables)
	}
	return p, nil
}

// AllTables returns the tables of every page, from opts.Page (or 1) on.
func (c *Client) AllTables(ctx context.Context, opts ListOptions) ([]Table, error) {
	if opts.Page <= 0 {
		opts.Page = 1
	}
	var all []Table
	for {
		p, err := c.ListTables(ctx, opts)
		if err != nil {
			return all, err
		}
		all = append(all, p.Tables...)
		if opts.Page >= p.Pages || len(p.Tables) == 0 {
			return all, nil
		}
		opts.Page++
	}
}

// Table returns one table.
func (c *Client) Table(ctx context.Context, name string) (Table, error) {
	var t Table
	if err := c.get(ctx, tablePath(name), nil, &t); err != nil {
		return t, fmt.Errorf("get table %s: %w", name, err)
	}
	return t, nil
}

// Status returns the table's scheduling state and, while it runs, its
// progress.
func (c *Client) Status(ctx context.Context, name string) (Status, error) {
	var s Status
	if err := c.get(ctx, tablePath(name, "status"), nil, &s); err != nil {
		return s, fmt.Errorf("get status of table %s: %w", name, err)
	}
	return s, nil
}

// Trigger starts a run of the table now and returns its id.
func (c *Client) Trigger(ctx context.Context, name string) (string, error) {
	var out struct {
		RunID string `json:"runId"`
	}
	if err := c.post(ctx, tablePath(name, "trigger"), &out); err != nil {
		return "", fmt.Errorf("trigger table %s: %w", name, err)
	}
	return out.RunID, nil
}

// Pause stashes the table's schedule: no run of it starts until Resume.
func (c *Client) Pause(ctx context.Context, name string) (TableRecord, error) {
	var t TableRecord
	if err := c.post(ctx, tablePath(name, "pause"), &t); err != nil {
		return t, fmt.Errorf("pause table %s: %w", name, err)
	}
	return t, nil
}

// Resume restores the table's schedule.
func (c *Client) Resume(ctx context.Context, name string) (TableRecord, error) {
	var t TableRecord
	if err := c.post(ctx, tablePath(name, "resume"), &t); err != nil {
		return t, fmt.Errorf("resume table %s: %w", name, err)
	}
	return t, nil
}

// Runs returns the table's newest runs, newest first; limit 0 means the
// server's default.
func (c *Client) Runs(ctx context.Context, name string, limit int) ([]Run, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out struct {
		Runs []Run `json:"runs"`
	}
	if err := c.get(ctx, tablePath(name, "runs"), q, &out); err != nil {
		return nil, fmt.Errorf("list runs of table %s: %w", name, err)
	}
	return out.Runs, nil
}
