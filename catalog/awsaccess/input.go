package awsaccess

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Connection is what the generator needs to know about a catalog
// connection; catalog.Config.AWSAccess fills it from the props.
type Connection struct {
	Name      string
	Type      string // catalog type (rest, s3tables, glue, sql, hadoop)
	Access    Access
	Region    string
	Account   string // the account that owns the catalog, when the connection names it
	Partition string // aws, aws-cn, aws-us-gov; "" derives it from Region
	// TableBucket is the S3 Tables table bucket ARN (s3tables).
	TableBucket string
	// APIURI is the REST catalog URI (rest-sigv4: an API Gateway URL).
	APIURI string
	// Warehouse is the s3:// location of the table files when the
	// connection names it (hadoop, rest, sql).
	Warehouse string
	// RoleARN and ExternalID: the role floe assumes to read (the role this
	// package generates) and the external id its trust requires.
	RoleARN, ExternalID string
	// ViaRoleARN and ViaExternalID: floe's own role, assumed first (the
	// middle hop of a two-hop chain).
	ViaRoleARN, ViaExternalID string
	// SeparateData: the connection reads table files with credentials of
	// their own (data.* props or secrets).
	SeparateData bool
}

// Options are the generator's inputs beyond the connection.
type Options struct {
	// TrustedPrincipal is floe's own principal, the one allowed to assume
	// the role: a 12-digit account id or an IAM role or user ARN. With a
	// two-hop chain the reader role trusts the middle role, and the middle
	// role trusts this principal.
	TrustedPrincipal string `json:"trustedPrincipal,omitempty"`
	// Data lists the s3://bucket/prefix locations of the table files
	// (needed for glue and REST connections; hadoop and sql default to
	// their warehouse).
	Data []string `json:"data,omitempty"`
	// DeepStore is the Pinot deep store (s3://bucket/prefix) floe writes
	// segments to, when it does.
	DeepStore string `json:"deepStore,omitempty"`
	// KMSKeys are the ARNs of the KMS keys that encrypt the files.
	KMSKeys []string `json:"kmsKeys,omitempty"`
	// LakeFormation: Lake Formation governs the Glue tables (floe then
	// needs lakeformation:GetDataAccess).
	LakeFormation bool `json:"lakeFormation,omitempty"`
	// Databases scopes Glue table reads to these databases (default all).
	Databases []string `json:"databases,omitempty"`
	// Account is the account that owns the catalog when the connection
	// does not say (glue without catalog-id, rest-sigv4).
	Account string `json:"account,omitempty"`
	// RoleName names the reader role when the connection has no role-arn.
	RoleName string `json:"roleName,omitempty"`
	// Notifications: floe reads commit announcements from an SQS queue
	// (the policy grants the four SQS actions on it).
	Notifications *Notifications `json:"notifications,omitempty"`
}

// ErrNothingToGrant: the connection reaches nothing through AWS IAM.
var ErrNothingToGrant = errors.New("nothing to grant: the connection uses no AWS service")

// InputError names the connection prop or option that is missing or wrong.
type InputError struct {
	Field string // e.g. "options.data", "props.uri"
	Msg   string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Msg }

var (
	accountPattern   = regexp.MustCompile(`^\d{12}$`)
	principalPattern = regexp.MustCompile(`^arn:aws[a-z-]*:(iam::\d{12}:(root|role/[\w+=,.@/-]+|user/[\w+=,.@/-]+)|sts::\d{12}:assumed-role/[\w+=,.@-]+/[\w+=,.@-]+)$`)
	keyARNPattern    = regexp.MustCompile(`^arn:aws[a-z-]*:kms:([a-z0-9-]+):(\d{12}):key/[A-Za-z0-9-]+$`)
	roleNamePattern  = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
	apiHostPattern   = regexp.MustCompile(`^([a-z0-9]+)\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$`)
	databasePattern  = regexp.MustCompile(`^[\w-]{1,255}$`)
)

// s3Loc is a parsed s3://bucket/prefix (prefix without slashes around it).
type s3Loc struct{ bucket, prefix string }

func parseS3(field, raw string) (s3Loc, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "s3" && u.Scheme != "s3a") || u.Host == "" {
		return s3Loc{}, &InputError{Field: field, Msg: fmt.Sprintf("%q is not an s3://bucket/prefix location", raw)}
	}
	return s3Loc{bucket: u.Host, prefix: strings.Trim(u.Path, "/")}, nil
}

// objects is the object ARN pattern under the location.
func (l s3Loc) objects(partition string) string {
	if l.prefix == "" {
		return "arn:" + partition + ":s3:::" + l.bucket + "/*"
	}
	return "arn:" + partition + ":s3:::" + l.bucket + "/" + l.prefix + "/*"
}

// resolver turns a connection and options into concrete ARNs.
type resolver struct {
	conn      Connection
	opts      Options
	partition string
	data      []s3Loc
	deep      []s3Loc
}

func newResolver(conn Connection, opts Options) (*resolver, error) {
	r := &resolver{conn: conn, opts: opts, partition: conn.Partition}
	if r.partition == "" {
		r.partition = partitionOf(conn.Region)
	}
	if r.conn.Account == "" {
		r.conn.Account = strings.TrimSpace(opts.Account)
	}
	if r.conn.Account == "" {
		r.conn.Account = accountOfARN(conn.RoleARN)
	}
	var errs []error
	if a := r.conn.Account; a != "" && !accountPattern.MatchString(a) {
		errs = append(errs, &InputError{Field: "options.account", Msg: fmt.Sprintf("%q is not a 12-digit account id", a)})
	}
	for i, d := range opts.Data {
		l, err := parseS3(fmt.Sprintf("options.data[%d]", i), d)
		errs = append(errs, err)
		r.data = append(r.data, l)
	}
	if len(r.data) == 0 && strings.HasPrefix(conn.Warehouse, "s3") {
		if l, err := parseS3("props.warehouse", conn.Warehouse); err == nil {
			r.data = append(r.data, l)
		}
	}
	if opts.DeepStore != "" {
		l, err := parseS3("options.deepStore", opts.DeepStore)
		errs = append(errs, err)
		r.deep = append(r.deep, l)
	}
	errs = append(errs, r.checkOptions()...)
	return r, errors.Join(errs...)
}

func (r *resolver) checkOptions() []error {
	var errs []error
	if p := r.opts.TrustedPrincipal; p != "" && !accountPattern.MatchString(p) && !principalPattern.MatchString(p) {
		errs = append(errs, &InputError{Field: "options.trustedPrincipal",
			Msg: fmt.Sprintf("%q is neither a 12-digit account id nor an IAM role, user or root ARN", p)})
	}
	for i, k := range r.opts.KMSKeys {
		if !keyARNPattern.MatchString(k) {
			errs = append(errs, &InputError{Field: fmt.Sprintf("options.kmsKeys[%d]", i),
				Msg: fmt.Sprintf("%q is not a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>; aliases cannot scope kms:Decrypt)", k)})
		}
	}
	if n := r.opts.RoleName; n != "" && !roleNamePattern.MatchString(n) {
		errs = append(errs, &InputError{Field: "options.roleName", Msg: fmt.Sprintf("%q is not an IAM role name (1-64 of letters, digits, +=,.@_-)", n)})
	}
	for i, db := range r.opts.Databases {
		if !databasePattern.MatchString(db) {
			errs = append(errs, &InputError{Field: fmt.Sprintf("options.databases[%d]", i), Msg: fmt.Sprintf("%q is not a Glue database name", db)})
		}
	}
	if r.opts.LakeFormation && r.conn.Access != GlueNative && r.conn.Access != GlueREST {
		errs = append(errs, &InputError{Field: "options.lakeFormation", Msg: "Lake Formation governs Glue tables only; this is a " + r.conn.Type + " connection"})
	}
	return errs
}

// partitionOf derives the AWS partition from a region name.
func partitionOf(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// accountOfARN returns the account of an ARN ("" when there is none).
func accountOfARN(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) == 6 {
		return parts[4]
	}
	return ""
}

// need fails when v is empty, naming where it should come from.
func need(v, field, msg string) error {
	if v == "" {
		return &InputError{Field: field, Msg: msg}
	}
	return nil
}

// arns returns the ARNs of one resource kind.
func (r *resolver) arns(res Resource) ([]string, error) {
	c := r.conn
	glue := "arn:" + r.partition + ":glue:" + c.Region + ":" + c.Account + ":"
	switch res {
	case ResTableBucket:
		return []string{c.TableBucket}, need(c.TableBucket, "props.arn", "the table bucket ARN is required")
	case ResTables:
		return []string{c.TableBucket + "/table/*"}, need(c.TableBucket, "props.arn", "the table bucket ARN is required")
	case ResGlueCatalog, ResGlueAllDatabases, ResGlueDatabases, ResGlueTables:
		if err := need(c.Account, "options.account", "the account that owns the Glue catalog is required (props catalog-id, role-arn or options.account)"); err != nil {
			return nil, err
		}
		return r.glueARNs(glue, res), nil
	case ResAPI:
		return r.apiARNs()
	case ResDataBucket, ResDataObjects:
		if len(r.data) == 0 {
			return nil, &InputError{Field: "options.data", Msg: "name the s3://bucket/prefix location(s) of the table files (the " + c.Type + " connection does not say where they are)"}
		}
		return r.s3ARNs(r.data, res == ResDataBucket), nil
	case ResDeepStoreBucket, ResDeepStoreObjects:
		return r.s3ARNs(r.deep, res == ResDeepStoreBucket), nil
	}
	return nil, fmt.Errorf("awsaccess: unknown resource %d", res)
}

func (r *resolver) glueARNs(prefix string, res Resource) []string {
	dbs := r.opts.Databases
	switch {
	case res == ResGlueCatalog:
		return []string{prefix + "catalog"}
	case res == ResGlueAllDatabases || (res == ResGlueDatabases && len(dbs) == 0):
		return []string{prefix + "database/*"}
	case res == ResGlueTables && len(dbs) == 0:
		return []string{prefix + "table/*/*"}
	}
	var out []string
	for _, db := range dbs {
		if res == ResGlueDatabases {
			out = append(out, prefix+"database/"+db)
		} else {
			out = append(out, prefix+"table/"+db+"/*")
		}
	}
	return out
}

// apiARNs scopes execute-api:Invoke to GET requests of the API and stage
// named by the catalog URI (https://<api>.execute-api.<region>.amazonaws.com/<stage>).
func (r *resolver) apiARNs() ([]string, error) {
	u, err := url.Parse(r.conn.APIURI)
	var m []string
	if err == nil {
		m = apiHostPattern.FindStringSubmatch(u.Hostname())
	}
	stage, _, _ := strings.Cut(strings.Trim(u.Path, "/"), "/")
	if m == nil || stage == "" {
		return nil, &InputError{Field: "props.uri", Msg: fmt.Sprintf("%q is not an API Gateway URL (https://<api-id>.execute-api.<region>.amazonaws.com/<stage>); "+
			"floe scopes execute-api:Invoke to the API and stage it names", r.conn.APIURI)}
	}
	if err := need(r.conn.Account, "options.account", "the account that owns the API is required (props role-arn or options.account)"); err != nil {
		return nil, err
	}
	return []string{"arn:" + r.partition + ":execute-api:" + m[2] + ":" + r.conn.Account + ":" + m[1] + "/" + stage + "/GET/*"}, nil
}

// s3ARNs returns bucket ARNs (bucket true) or object ARNs, deduplicated.
func (r *resolver) s3ARNs(locs []s3Loc, bucket bool) []string {
	var out []string
	for _, l := range locs {
		a := l.objects(r.partition)
		if bucket {
			a = "arn:" + r.partition + ":s3:::" + l.bucket
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}
