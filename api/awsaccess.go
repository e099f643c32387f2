package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/awsaccess"
	"github.com/floehq/floe/checkpoint"
)

// awsAccessRequest is the body of the POST variants: a connection not
// saved yet (as POST /api/v1/connections takes it; secrets are accepted
// and ignored) and the generator options.
type awsAccessRequest struct {
	Name    string            `json:"name"`
	Type    string            `json:"type"`
	Props   map[string]string `json:"props"`
	Secrets map[string]string `json:"secrets"`
	Options awsAccessOptions  `json:"options"`
}

// awsAccessOptions are the generator options plus the template's role.
type awsAccessOptions struct {
	awsaccess.Options
	Role string `json:"role,omitempty"` // reader (default) or middle
}

// optionsFromQuery reads the generator options of the GET variants.
func optionsFromQuery(r *http.Request) (awsAccessOptions, error) {
	q := r.URL.Query()
	o := awsAccessOptions{Role: q.Get("role"), Options: awsaccess.Options{
		TrustedPrincipal: q.Get("trustedPrincipal"), Data: q["data"], DeepStore: q.Get("deepStore"),
		KMSKeys: q["kmsKey"], Databases: q["database"], Account: q.Get("account"), RoleName: q.Get("roleName"),
	}}
	if v := q.Get("lakeFormation"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("%w: lakeFormation: invalid boolean %q", errBadRequest, v)
		}
		o.LakeFormation = b
	}
	if v := q.Get("notifications"); v != "" || q.Get("notifyQueueArn") != "" || q.Get("notifyQueueName") != "" {
		b, err := strconv.ParseBool(v)
		if v != "" && err != nil {
			return o, fmt.Errorf("%w: notifications: invalid boolean %q", errBadRequest, v)
		}
		if b || v == "" {
			o.Notifications = &awsaccess.Notifications{QueueARN: q.Get("notifyQueueArn"), QueueName: q.Get("notifyQueueName")}
		}
	}
	return o, nil
}

// savedAccess generates the access of a stored connection.
func (s *Server) savedAccess(r *http.Request) (*awsaccess.Result, awsAccessOptions, map[string]string, error) {
	opts, err := optionsFromQuery(r)
	if err != nil {
		return nil, opts, nil, err
	}
	name := r.PathValue("name")
	conn, err := s.store.GetConnection(r.Context(), name)
	if err != nil {
		return nil, opts, nil, fmt.Errorf("connection %s: %w", name, err)
	}
	cfg := storedConfig(conn)
	res, err := generateAccess(cfg, opts.Options)
	return res, opts, sensitive(conn.Props, conn.Secrets), err
}

// unsavedAccess generates the access of the connection in the body.
func (s *Server) unsavedAccess(w http.ResponseWriter, r *http.Request) (*awsaccess.Result, awsAccessOptions, map[string]string, error) {
	var req awsAccessRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return nil, req.Options, nil, err
	}
	name := r.PathValue("name")
	if req.Name != "" && req.Name != name {
		return nil, req.Options, nil, fmt.Errorf("%w: name: %q differs from the path's connection name %q", errBadRequest, req.Name, name)
	}
	cfg := catalog.Config{Name: name, Type: req.Type, Props: req.Props}
	res, err := generateAccess(cfg, req.Options.Options)
	return res, req.Options, sensitive(req.Props, req.Secrets), err
}

// generateAccess checks the connection, then generates its access; every
// input problem is a 400 naming the field.
func generateAccess(cfg catalog.Config, opts awsaccess.Options) (*awsaccess.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	res, err := awsaccess.Generate(cfg.AWSAccess(), opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	return res, nil
}

func (s *Server) handleIAMPolicy(w http.ResponseWriter, r *http.Request) {
	res, _, secrets, err := s.savedAccess(r)
	s.writeAccess(w, res, secrets, err)
}

func (s *Server) handleIAMPolicyUnsaved(w http.ResponseWriter, r *http.Request) {
	res, _, secrets, err := s.unsavedAccess(w, r)
	s.writeAccess(w, res, secrets, err)
}

func (s *Server) writeAccess(w http.ResponseWriter, res *awsaccess.Result, secrets map[string]string, err error) {
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) handleCloudFormation(w http.ResponseWriter, r *http.Request) {
	res, opts, secrets, err := s.savedAccess(r)
	s.writeTemplate(w, res, opts.Role, secrets, err)
}

func (s *Server) handleCloudFormationUnsaved(w http.ResponseWriter, r *http.Request) {
	res, opts, secrets, err := s.unsavedAccess(w, r)
	s.writeTemplate(w, res, opts.Role, secrets, err)
}

// writeTemplate serves the CloudFormation template as a YAML download.
func (s *Server) writeTemplate(w http.ResponseWriter, res *awsaccess.Result, role string, secrets map[string]string, err error) {
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	tpl, err := awsaccess.Template(res, role)
	if err != nil {
		s.writeScrubbed(w, fmt.Errorf("%w: %w", errBadRequest, err), secrets)
		return
	}
	name := res.Reader.Name
	if role == awsaccess.RoleMiddle {
		name = res.Middle.Name
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.yaml"`)
	_, _ = w.Write(tpl)
}

// Propagation waits of POST /connections/{name}/validate.
const (
	maxPropagationWait = 5 * time.Minute
	freshConnection    = 15 * time.Minute
)

// propagationWait is how long validate retries AccessDenied: ?wait= when
// given, else catalog.DefaultPropagationWait for a connection that assumes
// a role and was saved in the last 15 minutes (its role was most likely
// created moments ago), else 0.
func (s *Server) propagationWait(r *http.Request) (time.Duration, error) {
	if v := r.URL.Query().Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > maxPropagationWait {
			return 0, fmt.Errorf("%w: wait: want a duration from 0s to %s, got %q", errBadRequest, maxPropagationWait, v)
		}
		return d, nil
	}
	conn, err := s.store.GetConnection(r.Context(), r.PathValue("name"))
	if errors.Is(err, checkpoint.ErrNotFound) {
		return 0, nil // the validate handler reports it
	}
	if err != nil {
		return 0, err
	}
	assumes := false
	for k, v := range conn.Props {
		assumes = assumes || (v != "" && strings.HasSuffix(k, catalog.PropRoleARN))
	}
	if assumes && time.Since(conn.UpdatedAt) < freshConnection {
		return catalog.DefaultPropagationWait, nil
	}
	return 0, nil
}
