//go:build integration

package catalog_test

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/awsaccess"
	"github.com/floehq/floe/internal/testpeer"
)

// These tests deploy the generated CloudFormation templates into moto and
// run floe through the role they create, with moto's IAM enforcement on.
//
// What moto 5.2.5 enforces, and how the tests deal with what it does not:
//   - S3: object and bucket ARNs are checked; s3:prefix conditions are not
//     evaluated (moto ignores StringLike).
//   - STS AssumeRole: the caller's sts:AssumeRole and the trust policy's
//     principal (an exact IAM user ARN; moto matches neither an account
//     root principal nor a role ARN against an assumed-role session, so
//     floe's principal here is a user and the two-hop chain is proven by
//     the fake in TestGeneratedTrust_RefusesMissingExternalID) and a wrong
//     sts:ExternalId. An AssumeRole without any external id passes moto's
//     condition check vacuously; the same fake proves the generated trust
//     refuses it under AWS's rule (a condition key absent from the request
//     does not match StringEquals).
//   - Glue: moto authorizes every Glue call against resource "*", so a
//     statement scoped to catalog/database/table ARNs never matches in moto.
//     The Glue test widens the Glue statements' resources to "*" after
//     deploying (the S3 statements stay as generated and moto checks them).
//   - CloudFormation: moto stores inline role policies in a form its IAM
//     enforcement cannot read; testpeer.DeployMotoStack puts them again,
//     unchanged, as JSON.
//   - S3 Tables: moto rejects the SigV4 signature of every S3 Tables call
//     once enforcement is on, and serves table files as plain S3 (s3:GetObject
//     where AWS asks for s3tables:GetTableData), so its templates are only
//     deployed, not enforced.

// notEnforced lists, per access kind, the generated actions that removing
// does not make floe's validation fail in moto, with the reason.
var notEnforced = map[awsaccess.Access]map[string]string{
	awsaccess.GlueNative: {
		"s3:ListBucket": "floe never lists the data prefix of a Glue table; it is granted so a missing file answers 404, not 403",
	},
	awsaccess.HadoopS3: {},
}

// roleFixture is floe's principal (an IAM user that may only assume roles)
// and a connection that assumes the generated role with its external id.
type roleFixture struct {
	moto     string
	user     testpeer.MotoUser
	intruder testpeer.MotoUser // may assume roles too, but no trust names it
	cfg      catalog.Config
	res      *awsaccess.Result
}

func newRoleFixture(t *testing.T, moto string, cfg catalog.Config, opts awsaccess.Options) *roleFixture {
	t.Helper()
	f := &roleFixture{moto: moto, user: testpeer.CreateMotoUser(t, moto, "floe-runner-"+cfg.Name),
		intruder: testpeer.CreateMotoUser(t, moto, "intruder-"+cfg.Name)}
	cfg.Secrets = map[string]string{catalog.SecretAccessKeyID: f.user.ID, catalog.SecretSecretAccessKey: f.user.Secret}
	f.cfg = cfg
	opts.TrustedPrincipal = f.user.ARN
	res, err := awsaccess.Generate(cfg.AWSAccess(), opts)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	f.res = res
	tpl, err := awsaccess.Template(res, awsaccess.RoleReader)
	if err != nil {
		t.Fatal(err)
	}
	st := testpeer.DeployMotoStack(t, moto, "floe-"+cfg.Name, tpl)
	if st.Status != "CREATE_COMPLETE" || st.Outputs["RoleArn"] != cfg.Props[catalog.PropRoleARN] {
		t.Fatalf("stack = %+v, want CREATE_COMPLETE with RoleArn %s", st, cfg.Props[catalog.PropRoleARN])
	}
	return f
}

// with returns the connection with props changed.
func (f *roleFixture) with(kv ...string) catalog.Config {
	cfg := f.cfg
	cfg.Props = maps.Clone(cfg.Props)
	for i := 0; i+1 < len(kv); i += 2 {
		cfg.Props[kv[i]] = kv[i+1]
	}
	return cfg
}

// checkThroughRole proves validate, browse, load and a read of every data
// file run through the role, and that the trust refuses a wrong external
// id and another principal.
func (f *roleFixture) checkThroughRole(t *testing.T) {
	t.Helper()
	cat := openOK(t, f.cfg)
	rep := cat.Validate(t.Context())
	if !rep.OK || !strings.Contains(rep.Steps[0].Detail, "assumed-role/"+f.res.Reader.Name) {
		t.Fatalf("Validate = %+v, want every step ok as assumed-role/%s", rep, f.res.Reader.Name)
	}
	nss, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
	if err != nil || len(nss.Items) != 1 || nss.Items[0].String() != "sales" {
		t.Fatalf("ListNamespaces through the role = %v, %v; want [sales]", nss.Items, err)
	}
	checkLoaded(t, cat, catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}, "")

	other := f.cfg
	other.Secrets = map[string]string{catalog.SecretAccessKeyID: f.intruder.ID, catalog.SecretSecretAccessKey: f.intruder.Secret}
	for name, cfg := range map[string]catalog.Config{"wrong external id": f.with(catalog.PropExternalID, "not-the-external-id"), "untrusted principal": other} {
		f.wantAssumeRefused(t, name, cfg)
	}
}

// wantAssumeRefused: the role cannot be assumed with cfg. A Hadoop
// warehouse on S3 assumes the role when it opens (its FileIO takes static
// keys), other catalogs at the first call: validate's credentials step.
func (f *roleFixture) wantAssumeRefused(t *testing.T, name string, cfg catalog.Config) {
	t.Helper()
	if cfg.Type == catalog.TypeHadoop {
		_, err := catalog.Open(t.Context(), cfg, discard())
		if !errors.Is(err, catalog.ErrAccessDenied) || !strings.Contains(err.Error(), "needs sts:AssumeRole") {
			t.Errorf("%s: Open = %v, want ErrAccessDenied needing sts:AssumeRole", name, err)
		}
		return
	}
	wantFailedStep(t, openOK(t, cfg).Validate(t.Context()), "check credentials", catalog.ErrAccessDenied, "sts:AssumeRole")
}

// checkEveryActionNeeded removes each action of the policy in turn and
// wants validation to name exactly that action (or the action to be listed
// in notEnforced with its reason).
func (f *roleFixture) checkEveryActionNeeded(t *testing.T, policy awsaccess.Policy, step map[string]string) {
	t.Helper()
	skip := notEnforced[f.res.Access]
	for _, action := range policy.Actions() {
		t.Run("without "+action, func(t *testing.T) {
			testpeer.PutMotoRolePolicy(t, f.moto, f.res.Reader.Name, policy.Without(action), true)
			t.Cleanup(func() { testpeer.PutMotoRolePolicy(t, f.moto, f.res.Reader.Name, policy, true) })
			rep := openOK(t, f.cfg).Validate(t.Context())
			if reason, ok := skip[action]; ok {
				if !rep.OK {
					t.Fatalf("Validate without %s = %+v; listed as not needed by validation (%s)", action, rep, reason)
				}
				return
			}
			if step[action] == "" {
				t.Fatalf("no expected step for %s: add it, or list it in notEnforced with the reason", action)
			}
			wantFailedStep(t, rep, step[action], catalog.ErrAccessDenied, action)
		})
	}
}

func TestGeneratedRole_HadoopOnMoto(t *testing.T) {
	moto := testpeer.StartMoto(t)
	createBucket(t, moto, "lake-files")
	props := motoFileIO(moto)
	props["allow-unsafe-commits"] = "true"
	hadoopFixture(t, "s3://lake-files/wh", props)
	f := newRoleFixture(t, moto, catalog.Config{Name: "files", Type: catalog.TypeHadoop, Props: map[string]string{
		catalog.PropWarehouse: "s3://lake-files/wh", catalog.PropRegion: "us-east-1", catalog.PropEndpoint: moto,
		catalog.PropRoleARN: "arn:aws:iam::" + testpeer.MotoAccount + ":role/floe-files-reader", catalog.PropExternalID: "ext-files-42"}},
		awsaccess.Options{})
	testpeer.EnableMotoAuth(t, moto)

	f.checkThroughRole(t)
	f.checkEveryActionNeeded(t, f.res.Reader.Policy, map[string]string{
		"s3:ListBucket": "list namespaces", // the warehouse is found by listing
		"s3:GetObject":  "list tables",     // the namespace is checked with a HEAD before listing
	})
}

func TestGeneratedRole_GlueOnMoto(t *testing.T) {
	moto := testpeer.StartMoto(t)
	glueFixture(t, moto, false)
	f := newRoleFixture(t, moto, catalog.Config{Name: "glue", Type: catalog.TypeGlue, Props: map[string]string{
		catalog.PropRegion: "us-east-1", catalog.PropEndpoint: moto,
		catalog.PropRoleARN: "arn:aws:iam::" + testpeer.MotoAccount + ":role/floe-glue-reader", catalog.PropExternalID: "ext-glue-42"}},
		awsaccess.Options{Data: []string{"s3://glue-wh/sales"}})
	deployed := testpeer.MotoRolePolicy(t, moto, f.res.Reader.Name)
	if !sameJSON(t, deployed, f.res.Reader.Policy) {
		t.Fatalf("deployed policy %s differs from the generated one", deployed)
	}
	policy := glueAnyResource(f.res.Reader.Policy)
	testpeer.PutMotoRolePolicy(t, moto, f.res.Reader.Name, policy, false)
	testpeer.EnableMotoAuth(t, moto)

	f.checkThroughRole(t)
	f.checkEveryActionNeeded(t, policy, map[string]string{
		"glue:GetDatabases": "list namespaces",
		"glue:GetTables":    "list tables",
		"glue:GetTable":     "load table",
		"s3:GetObject":      "load table", // the metadata file
	})
}

// glueAnyResource widens the Glue statements to resource "*", the only
// resource moto authorizes Glue calls against.
func glueAnyResource(p awsaccess.Policy) awsaccess.Policy {
	out := awsaccess.Policy{Version: p.Version}
	for _, st := range p.Statement {
		if strings.HasPrefix(st.Action[0], "glue:") {
			st.Resource = []string{"*"}
		}
		out.Statement = append(out.Statement, st)
	}
	return out
}

func sameJSON(t *testing.T, a json.RawMessage, b any) bool {
	t.Helper()
	bb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(bb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Every generated template (each connection kind, and a chain's middle
// role) deploys through moto's CloudFormation, and the role's inline
// policy is the generated one.
func TestGeneratedTemplates_DeployOnMoto(t *testing.T) {
	moto := testpeer.StartMoto(t)
	for i, c := range []struct {
		cfg  catalog.Config
		opts awsaccess.Options
	}{
		{catalog.Config{Name: "tables", Type: catalog.TypeS3Tables, Props: map[string]string{
			catalog.PropARN: "arn:aws:s3tables:us-east-1:" + testpeer.MotoAccount + ":bucket/lake", catalog.PropMode: "native"}}, awsaccess.Options{}},
		{catalog.Config{Name: "tables-rest", Type: catalog.TypeS3Tables, Props: map[string]string{
			catalog.PropARN: "arn:aws:s3tables:us-east-1:" + testpeer.MotoAccount + ":bucket/lake"}}, awsaccess.Options{DeepStore: "s3://deep/segments"}},
		{catalog.Config{Name: "glue-rest", Type: catalog.TypeGlue, Props: map[string]string{catalog.PropRegion: "us-east-1", catalog.PropMode: "rest",
			catalog.PropCatalogID: testpeer.MotoAccount}}, awsaccess.Options{Data: []string{"s3://wh/x"}, LakeFormation: true}},
		{catalog.Config{Name: "api", Type: catalog.TypeREST, Props: map[string]string{catalog.PropURI: "https://abc123.execute-api.us-east-1.amazonaws.com/prod",
			catalog.PropSigV4: "true", catalog.PropRegion: "us-east-1"}}, awsaccess.Options{Account: testpeer.MotoAccount, Data: []string{"s3://wh"}}},
		{catalog.Config{Name: "chain", Type: catalog.TypeGlue, Props: map[string]string{catalog.PropRegion: "us-east-1",
			catalog.PropRoleARN: "arn:aws:iam::" + testpeer.MotoAccount + ":role/chain-reader", catalog.PropExternalID: "ext-1",
			catalog.PropViaRoleARN: "arn:aws:iam::" + testpeer.MotoAccount + ":role/floe-service"}},
			awsaccess.Options{Data: []string{"s3://wh"}, TrustedPrincipal: testpeer.MotoAccount}},
	} {
		res, err := awsaccess.Generate(c.cfg.AWSAccess(), c.opts)
		if err != nil {
			t.Fatalf("Generate(%s): %v", c.cfg.Name, err)
		}
		roles := map[string]*awsaccess.Role{awsaccess.RoleReader: &res.Reader}
		if res.Middle != nil {
			roles[awsaccess.RoleMiddle] = res.Middle
		}
		for which, role := range roles {
			tpl, err := awsaccess.Template(res, which)
			if err != nil {
				t.Fatal(err)
			}
			params := []string{"TrustedPrincipal=arn:aws:iam::" + testpeer.MotoAccount + ":user/floe"}
			if strings.Contains(string(tpl), "\n  ExternalId:\n") {
				params = append(params, "ExternalId=ext-"+c.cfg.Name)
			}
			st := testpeer.DeployMotoStack(t, moto, "s"+itoa(i)+which, tpl, params...)
			if st.Status != "CREATE_COMPLETE" || !strings.HasSuffix(st.Outputs["RoleArn"], ":role/"+role.Name) {
				t.Errorf("%s %s: stack %+v, want CREATE_COMPLETE with role %s", c.cfg.Name, which, st, role.Name)
			}
			if got := testpeer.MotoRolePolicy(t, moto, role.Name); !sameJSON(t, got, role.Policy) {
				t.Errorf("%s %s: deployed policy %s differs from the generated one", c.cfg.Name, which, got)
			}
		}
	}
}
