package awsaccess

import (
	"fmt"
	"strings"
)

// Result is the generated access for one connection: the reader role
// (the role floe assumes to read, with its policy and trust) and, for a
// two-hop chain, the middle role (floe's own role that assumes it).
type Result struct {
	Connection string `json:"connection"`
	Type       string `json:"type"`
	Access     Access `json:"access"`
	Reader     Role   `json:"reader"`
	Middle     *Role  `json:"middle,omitempty"`
	// Notifications is the queue floe reads commit announcements from.
	Notifications *NotifyQueue `json:"notifications,omitempty"`
	Notes         []string     `json:"notes,omitempty"`
}

// Role is one IAM role to create.
type Role struct {
	Name string `json:"name"`
	Path string `json:"path,omitempty"` // "/" unless the role ARN has a path
	ARN  string `json:"arn,omitempty"`  // known when the connection names the role
	// TrustedPrincipal and ExternalID are what the trust policy requires
	// ("" when not known yet: the template then asks for them).
	TrustedPrincipal string `json:"trustedPrincipal,omitempty"`
	ExternalID       string `json:"externalId,omitempty"`
	Policy           Policy `json:"policy"`
	// TrustPolicy is the role's trust policy; nil until the trusted
	// principal (and for the reader role the external id) is known.
	TrustPolicy *Policy `json:"trustPolicy,omitempty"`
}

// Generate builds the least-privilege access for a connection: the reader
// role's policy from the permission table (Table) for the connection's
// access kind, scoped to its resources, and the trust policies.
func Generate(conn Connection, opts Options) (*Result, error) {
	if conn.Access == None {
		return nil, fmt.Errorf("generate access for connection %s: %w", conn.Name, ErrNothingToGrant)
	}
	r, err := newResolver(conn, opts)
	if err != nil {
		return nil, fmt.Errorf("generate access for connection %s: %w", conn.Name, err)
	}
	pol, err := readerPolicy(r)
	if err != nil {
		return nil, fmt.Errorf("generate access for connection %s: %w", conn.Name, err)
	}
	q, err := r.notifyQueue()
	if err != nil {
		return nil, fmt.Errorf("generate access for connection %s: %w", conn.Name, err)
	}
	if q != nil {
		pol.Statement = append(pol.Statement, notifyStatement(q))
	}
	res := &Result{Connection: conn.Name, Type: conn.Type, Access: conn.Access, Notifications: q}
	res.Reader = Role{ARN: conn.RoleARN, ExternalID: conn.ExternalID, Policy: pol}
	res.Reader.Name, res.Reader.Path = roleNameAndPath(conn.RoleARN, opts.RoleName, "floe-"+conn.Name+"-reader")
	res.Reader.TrustedPrincipal = principalARN(opts.TrustedPrincipal, r.partition)
	if conn.ViaRoleARN != "" {
		res.Reader.TrustedPrincipal = conn.ViaRoleARN
		res.Middle = middleRole(conn, opts, r.partition)
	}
	if res.Reader.ExternalID != "" { // the reader role is assumed only with an external id
		res.Reader.TrustPolicy = trustPolicy(res.Reader.TrustedPrincipal, res.Reader.ExternalID)
	}
	res.Notes = notes(conn, opts, res)
	return res, nil
}

// middleRole is floe's own role of a two-hop chain: it may only assume
// the reader role.
func middleRole(conn Connection, opts Options, partition string) *Role {
	m := &Role{ARN: conn.ViaRoleARN, ExternalID: conn.ViaExternalID,
		TrustedPrincipal: principalARN(opts.TrustedPrincipal, partition)}
	m.Name, m.Path = roleNameAndPath(conn.ViaRoleARN, "", "floe-service")
	m.Policy = Policy{Version: PolicyVersion, Statement: []Statement{{Sid: "AssumeReaderRoleOnly", Effect: "Allow",
		Action: []string{"sts:AssumeRole"}, Resource: []string{conn.RoleARN}}}}
	m.TrustPolicy = trustPolicy(m.TrustedPrincipal, m.ExternalID)
	return m
}

// trustPolicy lets principal assume the role, only with externalID when
// one is set. nil when the principal is not known.
func trustPolicy(principal, externalID string) *Policy {
	if principal == "" {
		return nil
	}
	st := Statement{Sid: "FloeAssumesThisRole", Effect: "Allow", Principal: map[string]string{"AWS": principal},
		Action: []string{"sts:AssumeRole"}}
	if externalID != "" {
		st.Sid = "FloeAssumesThisRoleWithExternalId"
		st.Condition = map[string]map[string][]string{"StringEquals": {"sts:ExternalId": {externalID}}}
	}
	return &Policy{Version: PolicyVersion, Statement: []Statement{st}}
}

// principalARN turns an account id into its root principal ARN.
func principalARN(p, partition string) string {
	if accountPattern.MatchString(p) {
		return "arn:" + partition + ":iam::" + p + ":root"
	}
	return p
}

// roleNameAndPath splits a role ARN (arn:aws:iam::<acct>:role/<path/>name);
// without one it uses name, else def (sanitized, at most 64 characters).
func roleNameAndPath(arn, name, def string) (string, string) {
	if _, res, ok := strings.Cut(arn, ":role/"); ok {
		i := strings.LastIndex(res, "/")
		if i < 0 {
			return res, "/"
		}
		return res[i+1:], "/" + res[:i+1]
	}
	if name != "" {
		return name, "/"
	}
	var b strings.Builder
	for _, r := range def {
		if strings.ContainsRune("+=,.@_-", r) || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = s[:64]
	}
	return s, "/"
}

// notes say what the user still has to supply or know.
func notes(conn Connection, opts Options, res *Result) []string {
	var out []string
	if conn.RoleARN == "" {
		out = append(out, "the connection names no role-arn: after deploying, set props.role-arn to the template's RoleArn output (and props.external-id)")
	}
	if res.Reader.TrustedPrincipal == "" {
		out = append(out, "no trusted principal: pass floe's own principal (options.trustedPrincipal: an account id or an IAM role or user ARN) or give it as the template's TrustedPrincipal parameter")
	}
	if res.Reader.ExternalID == "" {
		out = append(out, "the connection has no external-id: set props.external-id to a random string and give the same value as the template's ExternalId parameter, so only floe can assume the role")
	}
	if res.Middle != nil && res.Middle.TrustPolicy == nil {
		out = append(out, "no trusted principal for the middle role: pass options.trustedPrincipal (the principal floe runs as)")
	}
	if conn.SeparateData {
		out = append(out, "the connection reads table files with credentials of their own (data.*): grant the ReadTableFiles and ListTableFilePrefix statements to that principal instead")
	}
	if len(opts.Data) > 0 && (conn.Access == S3TablesNative || conn.Access == S3TablesREST) {
		out = append(out, "options.data is ignored for S3 Tables: table files are read through s3tables:GetTableData")
	}
	out = append(out, notifyNotes(res.Notifications)...)
	out = append(out, "IAM changes can take a minute to propagate: validate the connection again if a freshly created role is denied at first")
	return out
}
