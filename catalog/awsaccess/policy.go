package awsaccess

import (
	"fmt"
	"slices"
	"strings"
)

// PolicyVersion is the IAM policy language version every document uses.
const PolicyVersion = "2012-10-17"

// Policy is an IAM policy document (identity or trust policy).
type Policy struct {
	Version   string      `json:"Version" yaml:"Version"`
	Statement []Statement `json:"Statement" yaml:"Statement"`
}

// Statement is one policy statement. Condition maps an operator to keys
// and their allowed values.
type Statement struct {
	Sid       string                         `json:"Sid" yaml:"Sid"`
	Effect    string                         `json:"Effect" yaml:"Effect"`
	Principal map[string]string              `json:"Principal,omitempty" yaml:"Principal,omitempty"`
	Action    []string                       `json:"Action" yaml:"Action"`
	Resource  []string                       `json:"Resource,omitempty" yaml:"Resource,omitempty"`
	Condition map[string]map[string][]string `json:"Condition,omitempty" yaml:"Condition,omitempty"`
}

// Actions lists every action the policy allows, in statement order.
func (p Policy) Actions() []string {
	var out []string
	for _, s := range p.Statement {
		for _, a := range s.Action {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// Without returns a copy of the policy with action removed (statements
// left empty are dropped). Tests use it to prove every action is needed.
func (p Policy) Without(action string) Policy {
	out := Policy{Version: p.Version}
	for _, s := range p.Statement {
		s.Action = slices.DeleteFunc(slices.Clone(s.Action), func(a string) bool { return a == action })
		if len(s.Action) > 0 {
			out.Statement = append(out.Statement, s)
		}
	}
	return out
}

// sidOf names the statement of a resource set.
func sidOf(k string) string {
	switch k {
	case key(ResTableBucket):
		return "ReadTableBucket"
	case key(ResTables):
		return "ReadTables"
	case key(ResGlueCatalog):
		return "ReadGlueCatalog"
	case key(ResGlueCatalog, ResGlueAllDatabases):
		return "ListGlueDatabases"
	case key(ResGlueCatalog, ResGlueDatabases, ResGlueTables):
		return "ReadGlueTables"
	case key(ResAPI):
		return "InvokeCatalogApiReadOnly"
	case key(ResDataObjects):
		return "ReadTableFiles"
	case key(ResDataBucket):
		return "ListTableFilePrefix"
	case key(ResDeepStoreObjects):
		return "WriteDeepStoreSegments"
	case key(ResDeepStoreBucket):
		return "ListDeepStorePrefix"
	}
	return ""
}

func key(rs ...Resource) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprint(int(r))
	}
	return strings.Join(parts, ",")
}

// statementFor returns the statement for a resource set, adding it.
func statementFor(stmts *[]Statement, keys *[]string, rs []Resource) *Statement {
	k := key(rs...)
	if i := slices.Index(*keys, k); i >= 0 {
		return &(*stmts)[i]
	}
	sid := sidOf(k)
	if sid == "" {
		sid = fmt.Sprintf("Statement%d", len(*stmts)+1)
	}
	*keys = append(*keys, k)
	*stmts = append(*stmts, Statement{Sid: sid, Effect: "Allow"})
	return &(*stmts)[len(*stmts)-1]
}

// readerPolicy builds the reader role's policy: every permission of the
// table for the connection's access kind, on the resolved resources.
func readerPolicy(r *resolver) (Policy, error) {
	var stmts []Statement
	var keys []string
	for _, op := range Ops() {
		if op == OpWriteDeepStore && r.opts.DeepStore == "" {
			continue
		}
		for _, p := range Permissions(r.conn.Access, op) {
			st := statementFor(&stmts, &keys, p.Resources)
			if !slices.Contains(st.Action, p.Action) {
				st.Action = append(st.Action, p.Action)
			}
		}
	}
	out := Policy{Version: PolicyVersion}
	for i, st := range stmts {
		expanded, err := r.expand(keys[i], st)
		if err != nil {
			return Policy{}, err
		}
		out.Statement = append(out.Statement, expanded...)
	}
	out.Statement = append(out.Statement, r.extras()...)
	return out, nil
}

// expand fills a statement's resources. A bucket listing becomes one
// statement per bucket, with an s3:prefix condition for its prefixes.
func (r *resolver) expand(k string, st Statement) ([]Statement, error) {
	var locs []s3Loc
	switch k {
	case key(ResDataBucket):
		locs = r.data
	case key(ResDeepStoreBucket):
		locs = r.deep
	}
	if locs == nil {
		for _, res := range resourcesOf(k) {
			arns, err := r.arns(res)
			if err != nil {
				return nil, err
			}
			st.Resource = append(st.Resource, arns...)
		}
		return []Statement{st}, nil
	}
	return r.listStatements(st, locs), nil
}

// listStatements grants s3:ListBucket per bucket, limited to the prefixes
// (a whole bucket is listed only when a location names no prefix).
func (r *resolver) listStatements(st Statement, locs []s3Loc) []Statement {
	var buckets []string
	prefixes := map[string][]string{}
	whole := map[string]bool{}
	for _, l := range locs {
		if !slices.Contains(buckets, l.bucket) {
			buckets = append(buckets, l.bucket)
		}
		if l.prefix == "" {
			whole[l.bucket] = true
		} else if !slices.Contains(prefixes[l.bucket], l.prefix) {
			prefixes[l.bucket] = append(prefixes[l.bucket], l.prefix, l.prefix+"/*")
		}
	}
	var out []Statement
	for i, b := range buckets {
		s := st
		s.Action = slices.Clone(st.Action)
		if len(buckets) > 1 {
			s.Sid = fmt.Sprintf("%s%d", st.Sid, i+1)
		}
		s.Resource = []string{"arn:" + r.partition + ":s3:::" + b}
		if !whole[b] {
			s.Condition = map[string]map[string][]string{"StringLike": {"s3:prefix": prefixes[b]}}
		}
		out = append(out, s)
	}
	return out
}

func resourcesOf(k string) []Resource {
	var out []Resource
	for _, p := range strings.Split(k, ",") {
		var n int
		fmt.Sscan(p, &n)
		out = append(out, Resource(n))
	}
	return out
}

// extras are the statements the options add: kms:Decrypt (and
// kms:GenerateDataKey for deep store writes) through S3 only, and
// lakeformation:GetDataAccess.
func (r *resolver) extras() []Statement {
	var out []Statement
	if len(r.opts.KMSKeys) > 0 {
		actions := []string{"kms:Decrypt"}
		if len(r.deep) > 0 {
			actions = append(actions, "kms:GenerateDataKey")
		}
		var regions []string
		for _, k := range r.opts.KMSKeys {
			if reg := strings.Split(k, ":")[3]; !slices.Contains(regions, reg) {
				regions = append(regions, reg)
			}
		}
		var via []string
		for _, reg := range regions {
			via = append(via, "s3."+reg+".amazonaws.com")
			if r.conn.Access == S3TablesNative || r.conn.Access == S3TablesREST {
				via = append(via, "s3tables."+reg+".amazonaws.com")
			}
		}
		out = append(out, Statement{Sid: "UseKmsKeysOnlyThroughS3", Effect: "Allow", Action: actions,
			Resource: slices.Clone(r.opts.KMSKeys), Condition: map[string]map[string][]string{"StringEquals": {"kms:ViaService": via}}})
	}
	if r.opts.LakeFormation {
		out = append(out, Statement{Sid: "LakeFormationGetDataAccessSupportsNoResourceNarrowerThanStar", Effect: "Allow",
			Action: []string{"lakeformation:GetDataAccess"}, Resource: []string{"*"}})
	}
	return out
}
