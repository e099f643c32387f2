package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/redact"
)

// connectionList is every stored connection, without secrets.
type connectionList struct {
	Connections []connectionView `json:"connections"`
}

// connectionView is a connection with its secrets left out: only the names
// of the secret keys are shown, so an operator can see what is configured.
type connectionView struct {
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Props      map[string]string `json:"props,omitempty"`
	SecretKeys []string          `json:"secretKeys,omitempty"`
}

// connectionView shows c without its secrets. A credential an older
// record still holds in props is shown as a secret key, as the record
// will be once rewritten (catalog.Config.MoveCredentials).
func (s *Server) connectionView(c checkpoint.Connection) connectionView {
	cfg := storedConfig(c)
	v := connectionView{Name: c.Name, Type: c.Type}
	own := redact.New()
	own.Set("connection", cfg.SecretValues()...)
	if len(cfg.Props) > 0 {
		v.Props = make(map[string]string, len(cfg.Props))
		for k, p := range cfg.Props {
			v.Props[k] = redactURL(s.red.Scrub(own.Scrub(p)))
		}
	}
	for k := range cfg.Secrets {
		v.SecretKeys = append(v.SecretKeys, k)
	}
	sort.Strings(v.SecretKeys)
	return v
}

// storedConfig is a stored connection as a catalog config, with any
// credential an older record holds in props moved to its secrets.
func storedConfig(c checkpoint.Connection) catalog.Config {
	cfg, _ := catalog.Config{Name: c.Name, Type: c.Type, Props: c.Props, Secrets: c.Secrets}.MoveCredentials()
	return cfg
}

// sensitive returns the values to scrub from anything sent about a
// connection: its secrets, credentials written in props (passwords inside
// URLs and connection strings included) and user:password pairs.
func sensitive(props, secrets map[string]string) map[string]string {
	vals := catalog.Config{Props: props, Secrets: secrets}.SecretValues()
	out := make(map[string]string, len(vals))
	for i, v := range vals {
		out[strconv.Itoa(i)] = v
	}
	return out
}

// redactURL hides a password written into a URL prop (e.g. a Postgres
// uri given with user:password@ instead of secrets.password).
func redactURL(p string) string {
	if u, err := url.Parse(p); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	return p
}

func (s *Server) handleListConnections(w http.ResponseWriter, r *http.Request) {
	conns, err := s.store.ListConnections(r.Context())
	if err != nil {
		s.writeErr(w, err)
		return
	}
	out := make([]connectionView, 0, len(conns))
	for _, c := range conns {
		out = append(out, s.connectionView(c))
	}
	writeJSON(w, http.StatusOK, connectionList{Connections: out})
}

func (s *Server) handleGetConnection(w http.ResponseWriter, r *http.Request) {
	c, err := s.store.GetConnection(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.connectionView(c))
}

// connectionRequest is the body of POST /api/v1/connections.
type connectionRequest struct {
	Name    string            `json:"name"`
	Type    string            `json:"type"`
	Props   map[string]string `json:"props"`
	Secrets map[string]string `json:"secrets"`
}

// connectionNamePattern keeps names usable as one URL path segment.
var connectionNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// maxConnectionName is the longest connection name.
const maxConnectionName = 128

// handlePutConnection creates or replaces a connection: 201 when new, 200
// when replaced. The answer is redacted like every connection view.
func (s *Server) handlePutConnection(w http.ResponseWriter, r *http.Request) {
	var req connectionRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		s.writeErr(w, err)
		return
	}
	if req.Name != "" && (!connectionNamePattern.MatchString(req.Name) || len(req.Name) > maxConnectionName) {
		s.writeErr(w, fmt.Errorf("%w: name: %q: a connection name is 1-%d ASCII letters, digits, '_', '.' and '-', starting with a letter or digit",
			errBadRequest, req.Name, maxConnectionName))
		return
	}
	cfg := catalog.Config{Name: req.Name, Type: req.Type, Props: req.Props, Secrets: req.Secrets}
	if err := errors.Join(cfg.ValidateWrite(), s.opts.Policy.Check(cfg)); err != nil {
		s.writeScrubbed(w, err, sensitive(req.Props, req.Secrets))
		return
	}
	now := time.Now().UTC()
	c := checkpoint.Connection{Name: req.Name, Type: req.Type, Props: req.Props, Secrets: req.Secrets,
		CreatedAt: now, UpdatedAt: now}
	status := http.StatusCreated
	old, err := s.store.GetConnection(r.Context(), req.Name)
	switch {
	case err == nil:
		c.CreatedAt, status = old.CreatedAt, http.StatusOK
	case !errors.Is(err, checkpoint.ErrNotFound):
		s.writeErr(w, err)
		return
	}
	s.red.Set("stored/"+req.Name, cfg.SecretValues()...)
	if err := s.store.PutConnection(r.Context(), c); err != nil {
		s.writeScrubbed(w, fmt.Errorf("store connection %s: %w", req.Name, err), sensitive(req.Props, req.Secrets))
		return
	}
	s.log.Info("connection stored", slog.String("connection", req.Name), slog.String("type", req.Type))
	writeJSON(w, status, s.connectionView(c))
}

// handleDeleteConnection removes a connection no table uses (409 naming
// the tables otherwise). The store checks and deletes in one step, so a
// table created on the connection at the same moment either makes this
// fail or fails itself (checkpoint C13).
func (s *Server) handleDeleteConnection(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := s.store.DeleteConnection(r.Context(), name); err != nil {
		s.writeErr(w, fmt.Errorf("connection %s: %w", name, err))
		return
	}
	s.red.Forget("stored/" + name)
	s.log.Info("connection deleted", slog.String("connection", name))
	w.WriteHeader(http.StatusNoContent)
}

// openCatalog returns the named connection's catalog and its secrets
// (to scrub error messages with).
func (s *Server) openCatalog(r *http.Request, name string) (catalog.Catalog, map[string]string, error) {
	if s.cats == nil {
		return nil, nil, fmt.Errorf("open connection %s: %w", name, errNoCatalogs)
	}
	conn, err := s.store.GetConnection(r.Context(), name)
	if err != nil {
		return nil, nil, fmt.Errorf("connection %s: %w", name, err)
	}
	secrets := sensitive(conn.Props, conn.Secrets)
	cfg := storedConfig(conn)
	s.red.Set("stored/"+name, cfg.SecretValues()...)
	if err := s.opts.Policy.Check(cfg); err != nil {
		return nil, secrets, fmt.Errorf("open connection %s: %w", name, err)
	}
	cat, err := s.cats.Catalog(r.Context(), name)
	if err != nil {
		return nil, secrets, err
	}
	return cat, secrets, nil
}

// handleValidateConnection runs the catalog's step-by-step check, retrying
// an AccessDenied while IAM changes may be propagating (propagationWait).
// The report is 200 even when a step failed (its ok field says so).
func (s *Server) handleValidateConnection(w http.ResponseWriter, r *http.Request) {
	wait, err := s.propagationWait(r)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	cat, secrets, err := s.openCatalog(r, r.PathValue("name"))
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	rep := catalog.ValidateWithRetry(r.Context(), cat, catalog.ValidateOptions{PropagationWait: wait})
	for i := range rep.Steps {
		rep.Steps[i].Detail = s.scrub(rep.Steps[i].Detail, secrets)
		rep.Steps[i].Error = s.scrub(rep.Steps[i].Error, secrets)
	}
	writeJSON(w, http.StatusOK, rep)
}

// pageRequest reads pageToken and pageSize (1 to catalog.MaxPageSize).
func pageRequest(r *http.Request) (catalog.PageRequest, error) {
	p := catalog.PageRequest{Token: r.URL.Query().Get("pageToken")}
	if v := r.URL.Query().Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > catalog.MaxPageSize {
			return p, fmt.Errorf("%w: pageSize: want 1-%d, got %q", errBadRequest, catalog.MaxPageSize, v)
		}
		p.Size = n
	}
	return p, nil
}

// pageErr names the pageToken parameter when the catalog refused it.
func pageErr(err error, page catalog.PageRequest) error {
	if page.Token != "" && errors.Is(err, catalog.ErrInvalidConfig) {
		return fmt.Errorf("pageToken: %w", err)
	}
	return err
}

// splitNamespace turns "a.b" into its levels.
func splitNamespace(ns string) []string {
	if ns == "" {
		return nil
	}
	return strings.Split(ns, ".")
}

// checkIdent refuses a namespace or table name a catalog could take for a
// path or that renders as something else: empty levels (so no "." or
// ".." either), '/' and '\', control and invisible format characters.
func checkIdent(field, v string) error {
	for _, part := range splitNamespace(v) {
		bad := ""
		switch {
		case part == "": // also what "." and ".." split into
			bad = "an empty level"
		case strings.ContainsAny(part, "/\\"):
			bad = "a path separator"
		case strings.IndexFunc(part, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0:
			bad = "a control or invisible character"
		}
		if bad != "" {
			return fmt.Errorf("%w: %s: %q holds %s", errBadRequest, field, v, bad)
		}
	}
	return nil
}

// listPage answers one page of a catalog listing: it opens the
// connection's catalog, asks list for the page and writes
// {key: items, "nextPageToken": ...}. Errors never carry the secrets.
func (s *Server) listPage(w http.ResponseWriter, r *http.Request,
	list func(ctx context.Context, cat catalog.Catalog, page catalog.PageRequest) (any, error)) {
	page, err := pageRequest(r)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	cat, secrets, err := s.openCatalog(r, r.PathValue("name"))
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	answer, err := list(r.Context(), cat, page)
	if err != nil {
		s.writeScrubbed(w, pageErr(err, page), secrets)
		return
	}
	writeJSON(w, http.StatusOK, answer)
}

// namespacePage is one page of a catalog's namespaces.
type namespacePage struct {
	Namespaces    []string `json:"namespaces"`
	NextPageToken string   `json:"nextPageToken"`
}

// handleListNamespaces lists one page of namespaces (?parent=a.b for the
// levels below a namespace).
func (s *Server) handleListNamespaces(w http.ResponseWriter, r *http.Request) {
	s.listPage(w, r, func(ctx context.Context, cat catalog.Catalog, page catalog.PageRequest) (any, error) {
		if err := checkIdent("parent", r.URL.Query().Get("parent")); err != nil {
			return nil, err
		}
		p, err := cat.ListNamespaces(ctx, splitNamespace(r.URL.Query().Get("parent")), page)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(p.Items))
		for _, ns := range p.Items {
			names = append(names, ns.String())
		}
		return namespacePage{Namespaces: names, NextPageToken: p.NextToken}, nil
	})
}

// catalogTableView is one table of a catalog listing.
type catalogTableView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// catalogTablePage is one page of a namespace's tables.
type catalogTablePage struct {
	Tables        []catalogTableView `json:"tables"`
	NextPageToken string             `json:"nextPageToken"`
}

// handleListCatalogTables lists one page of a namespace's tables.
func (s *Server) handleListCatalogTables(w http.ResponseWriter, r *http.Request) {
	s.listPage(w, r, func(ctx context.Context, cat catalog.Catalog, page catalog.PageRequest) (any, error) {
		if err := checkIdent("namespace", r.PathValue("ns")); err != nil {
			return nil, err
		}
		p, err := cat.ListTables(ctx, splitNamespace(r.PathValue("ns")), page)
		if err != nil {
			return nil, err
		}
		out := make([]catalogTableView, 0, len(p.Items))
		for _, t := range p.Items {
			out = append(out, catalogTableView{Namespace: strings.Join(t.Namespace, "."), Name: t.Name})
		}
		return catalogTablePage{Tables: out, NextPageToken: p.NextToken}, nil
	})
}

// handleDescribeTable summarises one Iceberg table: schema, partitioning,
// current snapshot.
func (s *Server) handleDescribeTable(w http.ResponseWriter, r *http.Request) {
	if err := errors.Join(checkIdent("namespace", r.PathValue("ns")), checkIdent("table", r.PathValue("table"))); err != nil {
		s.writeErr(w, err)
		return
	}
	cat, secrets, err := s.openCatalog(r, r.PathValue("name"))
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	ident := catalog.TableIdent{Namespace: splitNamespace(r.PathValue("ns")), Name: r.PathValue("table")}
	info, err := cat.Describe(r.Context(), ident)
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	for k, v := range info.Properties {
		info.Properties[k] = s.scrub(v, secrets)
	}
	writeJSON(w, http.StatusOK, info)
}
