package api

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// Paging limits of the list endpoints.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// Sort keys of GET /api/v1/tables (a leading '-' sorts descending).
const (
	sortName    = "name"
	sortState   = "state"
	sortLastRun = "lastRun"
	sortLag     = "lag"
	sortRows    = "rows"
)

// listQuery is a parsed GET /api/v1/tables query.
type listQuery struct {
	page, pageSize int
	states         map[string]bool // nil: every state
	text           string          // lower case; "" matches all
	sort           string
	desc           bool
}

// pageParams parses page and pageSize, naming the bad parameter.
func pageParams(q url.Values) (page, size int, err error) {
	page, size = 1, defaultPageSize
	if v := q.Get("page"); v != "" {
		if page, err = strconv.Atoi(v); err != nil || page < 1 {
			return 0, 0, fmt.Errorf("%w: page: want an integer from 1, got %q", errBadRequest, v)
		}
	}
	if v := q.Get("pageSize"); v != "" {
		if size, err = strconv.Atoi(v); err != nil || size < 1 || size > maxPageSize {
			return 0, 0, fmt.Errorf("%w: pageSize: want an integer from 1 to %d, got %q", errBadRequest, maxPageSize, v)
		}
	}
	return page, size, nil
}

func parseListQuery(q url.Values) (listQuery, error) {
	lq := listQuery{sort: sortName, text: strings.ToLower(strings.TrimSpace(q.Get("q")))}
	var err error
	if lq.page, lq.pageSize, err = pageParams(q); err != nil {
		return lq, err
	}
	if v := q.Get("state"); v != "" {
		lq.states = map[string]bool{}
		for _, s := range strings.Split(v, ",") {
			s = strings.ToUpper(strings.TrimSpace(s))
			if !slices.Contains(overviewStates, s) {
				return lq, fmt.Errorf("%w: state: %q is not one of %s", errBadRequest, s, strings.Join(overviewStates, ", "))
			}
			lq.states[s] = true
		}
	}
	if v := q.Get("sort"); v != "" {
		lq.sort, lq.desc = strings.CutPrefix(v, "-")
		if !slices.Contains([]string{sortName, sortState, sortLastRun, sortLag, sortRows}, lq.sort) {
			return lq, fmt.Errorf("%w: sort: %q is not one of name, state, lastRun, lag, rows (a leading - sorts descending)", errBadRequest, v)
		}
	}
	return lq, nil
}

// needsOverviews reports whether every matching table's overview must be
// read to choose the page (a state filter, or a sort on overview fields).
func (lq listQuery) needsOverviews() bool { return lq.states != nil || lq.sort != sortName }

// matches reports whether the search text is in the table's name, source
// (namespace.table) or connection, ignoring case.
func (lq listQuery) matches(t *checkpoint.Table) bool {
	if lq.text == "" {
		return true
	}
	for _, s := range []string{t.Name, t.Namespace + "." + t.Source, t.Connection} {
		if strings.Contains(strings.ToLower(s), lq.text) {
			return true
		}
	}
	return false
}

// row is one table of a listing with its overview.
type row struct {
	t  *checkpoint.Table
	ov checkpoint.TableOverview
	o  overview
}

// listPage is the answer of GET /api/v1/tables.
type listPage struct {
	Tables []tableView `json:"tables"`
	pageInfo
}

// pageInfo says where a page sits in a paginated answer.
type pageInfo struct {
	Page     int `json:"page"`
	PageSize int `json:"pageSize"`
	Total    int `json:"total"`
	Pages    int `json:"pages"`
}

// newPageInfo is page page of size items of total (at least one page,
// an empty one when there is nothing).
func newPageInfo(page, size, total int) pageInfo {
	return pageInfo{Page: page, PageSize: size, Total: total, Pages: max(1, (total+size-1)/size)}
}

// bounds is the page's slice of the total items: [lo, hi).
func (p pageInfo) bounds() (lo, hi int) {
	lo = min((p.Page-1)*p.PageSize, p.Total)
	return lo, min(lo+p.PageSize, p.Total)
}

// handleListTables answers one page of the tables. The table records come
// from the listing cache (one revision read while no table changed); the
// overviews are one batched store read: of the page's tables, or of every
// matching table when a state filter or an overview sort needs them.
func (s *Server) handleListTables(w http.ResponseWriter, r *http.Request) {
	lq, err := parseListQuery(r.URL.Query())
	if err != nil {
		s.writeErr(w, err)
		return
	}
	all, err := s.tables.list(r.Context(), s.store)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	var rows []row
	for i := range all {
		if lq.matches(&all[i]) {
			rows = append(rows, row{t: &all[i]})
		}
	}
	statuses, now := s.statusIndex(), time.Now()
	if lq.needsOverviews() {
		if rows, err = s.withOverviews(r, rows, statuses, now); err != nil {
			s.writeErr(w, err)
			return
		}
		rows = filterStates(rows, lq.states)
		orderRows(rows, lq.sort, lq.desc)
	} else if lq.desc {
		slices.Reverse(rows)
	}
	pi := newPageInfo(lq.page, lq.pageSize, len(rows))
	lo, hi := pi.bounds()
	rows = rows[lo:hi]
	if !lq.needsOverviews() {
		if rows, err = s.withOverviews(r, rows, statuses, now); err != nil {
			s.writeErr(w, err)
			return
		}
	}
	out := listPage{Tables: make([]tableView, 0, len(rows)), pageInfo: pi}
	for _, rw := range rows {
		if rw.ov.LastRun != nil {
			rw.ov.LastRun.Log = nil // the runs endpoint has the log; pages stay light
		}
		out.Tables = append(out.Tables, s.rowView(rw, statuses[rw.t.Name]))
	}
	writeJSON(w, http.StatusOK, out)
}

// withOverviews reads the overviews of rows in one batch and derives each.
func (s *Server) withOverviews(r *http.Request, rows []row, statuses map[string]*watcher.TableStatus, now time.Time) ([]row, error) {
	names := make([]string, len(rows))
	for i, rw := range rows {
		names[i] = rw.t.Name
	}
	ovs, err := s.store.TableOverviews(r.Context(), names)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].ov = ovs[i]
		rows[i].o = deriveOverview(*rows[i].t, ovs[i], statuses[rows[i].t.Name], now)
	}
	return rows, nil
}

// statusIndex is the watcher's status of every table it knows, by name.
func (s *Server) statusIndex() map[string]*watcher.TableStatus {
	out := map[string]*watcher.TableStatus{}
	for _, st := range s.watcher.Status() {
		out[st.Table] = &st
	}
	return out
}

func filterStates(rows []row, states map[string]bool) []row {
	if states == nil {
		return rows
	}
	return slices.DeleteFunc(rows, func(rw row) bool { return !states[rw.o.state] })
}

// orderRows orders rows by key, ties by name (always ascending).
func orderRows(rows []row, key string, desc bool) {
	slices.SortStableFunc(rows, func(a, b row) int {
		c := compareBy(a, b, key)
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(a.t.Name, b.t.Name)
	})
}

func compareBy(a, b row, key string) int {
	switch key {
	case sortState:
		return cmp.Compare(slices.Index(overviewStates, a.o.state), slices.Index(overviewStates, b.o.state))
	case sortLastRun:
		return lastStart(a).Compare(lastStart(b))
	case sortLag:
		return cmp.Or(cmp.Compare(lagSeconds(a), lagSeconds(b)), cmp.Compare(lagSnapshots(a), lagSnapshots(b)))
	case sortRows:
		return cmp.Compare(a.o.rows, b.o.rows)
	}
	return strings.Compare(a.t.Name, b.t.Name)
}

func lastStart(rw row) time.Time {
	if rw.ov.LastRun == nil {
		return time.Time{}
	}
	return rw.ov.LastRun.StartedAt
}

// lagSeconds and lagSnapshots sort a table never checked (-1) before one
// without lag.
func lagSeconds(rw row) float64 {
	if rw.o.lag == nil {
		return -1
	}
	return rw.o.lag.Seconds
}

func lagSnapshots(rw row) int {
	if rw.o.lag == nil {
		return -1
	}
	return rw.o.lag.Snapshots
}

// summary is the answer of GET /api/v1/summary.
type summary struct {
	Tables  int            `json:"tables"`
	States  map[string]int `json:"states"`
	Rows    int64          `json:"rows"`
	Lagging int            `json:"lagging"`
}

// handleSummary counts the tables per overview state, their rows in Pinot
// and the tables behind their source: one batched overview read.
func (s *Server) handleSummary(w http.ResponseWriter, r *http.Request) {
	all, err := s.tables.list(r.Context(), s.store)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	rows := make([]row, len(all))
	for i := range all {
		rows[i] = row{t: &all[i]}
	}
	if rows, err = s.withOverviews(r, rows, s.statusIndex(), time.Now()); err != nil {
		s.writeErr(w, err)
		return
	}
	out := summary{Tables: len(rows), States: map[string]int{}}
	for _, st := range overviewStates {
		out.States[st] = 0
	}
	for _, rw := range rows {
		out.States[rw.o.state]++
		out.Rows += rw.o.rows
		if rw.o.lag != nil && rw.o.lag.Snapshots > 0 {
			out.Lagging++
		}
	}
	writeJSON(w, http.StatusOK, out)
}
