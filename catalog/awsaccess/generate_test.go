package awsaccess_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/awsaccess"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func generate(t *testing.T, c connCase) *awsaccess.Result {
	t.Helper()
	if err := c.cfg.Validate(); err != nil {
		t.Fatalf("%s: config invalid: %v", c.name, err)
	}
	res, err := awsaccess.Generate(c.cfg.AWSAccess(), c.opts)
	if err != nil {
		t.Fatalf("%s: Generate: %v", c.name, err)
	}
	return res
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s: %v (run go test -update)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (review the diff, then go test -update):\n%s", path, got)
	}
}

// The generated documents of every connection kind, pinned as goldens so
// a change to the table or the generator shows up as a reviewed diff.
func TestGenerate_Goldens(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			res := generate(t, c)
			js, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".json", append(js, '\n'))
			tpl, err := awsaccess.Template(res, awsaccess.RoleReader)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".yaml", tpl)
			if res.Middle != nil {
				mid, err := awsaccess.Template(res, awsaccess.RoleMiddle)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, c.name+"-middle.yaml", mid)
			}
		})
	}
}

// Least privilege, statement by statement: no "*" action (nor a wildcard
// in an action name), a "*" resource only where the Sid gives the reason,
// s3:ListBucket always with an s3:prefix condition when a prefix is named,
// kms:Decrypt only through S3, and exactly the actions of the permission
// table plus the options' extras (invariants A1, A2).
func TestGenerate_LeastPrivilege(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			res := generate(t, c)
			for _, st := range res.Reader.Policy.Statement {
				for _, a := range st.Action {
					if strings.Contains(a, "*") {
						t.Errorf("statement %s: wildcard action %q", st.Sid, a)
					}
				}
				if slices.Contains(st.Resource, "*") && !strings.Contains(st.Sid, "NarrowerThanStar") {
					t.Errorf("statement %s: resource * without the reason in its Sid", st.Sid)
				}
				if slices.Contains(st.Action, "s3:ListBucket") && st.Condition["StringLike"]["s3:prefix"] == nil && !wholeBucket(c, st.Resource) {
					t.Errorf("statement %s: s3:ListBucket without an s3:prefix condition", st.Sid)
				}
				if slices.Contains(st.Action, "kms:Decrypt") && len(st.Condition["StringEquals"]["kms:ViaService"]) == 0 {
					t.Errorf("statement %s: kms:Decrypt without kms:ViaService", st.Sid)
				}
			}
			want := wantActions(c)
			if got := res.Reader.Policy.Actions(); !sameSet(got, want) {
				t.Errorf("actions = %v, want %v", got, want)
			}
		})
	}
}

// wholeBucket: the options name the statement's bucket without a prefix.
func wholeBucket(c connCase, resources []string) bool {
	for _, loc := range append(slices.Clone(c.opts.Data), c.opts.DeepStore) {
		for _, r := range resources {
			if "arn:aws:s3:::"+strings.TrimPrefix(loc, "s3://") == r {
				return true
			}
		}
	}
	return false
}

// wantActions is the table's actions for the case plus the extras.
func wantActions(c connCase) []string {
	access := c.cfg.AWSAccess().Access
	var want []string
	for _, op := range awsaccess.Ops() {
		if op == awsaccess.OpWriteDeepStore && c.opts.DeepStore == "" {
			continue
		}
		want = append(want, awsaccess.Actions(access, op)...)
	}
	if len(c.opts.KMSKeys) > 0 {
		want = append(want, "kms:Decrypt")
		if c.opts.DeepStore != "" {
			want = append(want, "kms:GenerateDataKey")
		}
	}
	if c.opts.LakeFormation {
		want = append(want, "lakeformation:GetDataAccess")
	}
	if c.opts.Notifications != nil {
		want = append(want, "sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ReceiveMessage")
	}
	return want
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// The template holds the same policy document as the JSON answer, and a
// trust policy that asks for the external id (invariant A3).
func TestTemplate_SamePolicyAsJSON(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			res := generate(t, c)
			tpl, err := awsaccess.Template(res, "")
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Parameters map[string]struct {
					Default any `yaml:"Default"`
				} `yaml:"Parameters"`
				Resources struct {
					Role struct {
						Properties struct {
							AssumeRolePolicyDocument map[string]any `yaml:"AssumeRolePolicyDocument"`
							Policies                 []struct {
								PolicyDocument any `yaml:"PolicyDocument"`
							} `yaml:"Policies"`
						} `yaml:"Properties"`
					} `yaml:"Role"`
				} `yaml:"Resources"`
			}
			if err := yaml.Unmarshal(tpl, &doc); err != nil {
				t.Fatalf("template is not YAML: %v\n%s", err, tpl)
			}
			props := doc.Resources.Role.Properties
			if len(props.Policies) != 1 {
				t.Fatalf("policies = %d, want 1", len(props.Policies))
			}
			if got, want := normalize(t, props.Policies[0].PolicyDocument), normalize(t, res.Reader.Policy); !reflect.DeepEqual(got, want) {
				t.Errorf("template policy = %v\nwant the JSON policy %v", got, want)
			}
			trust, _ := json.Marshal(props.AssumeRolePolicyDocument)
			if !strings.Contains(string(trust), `"sts:ExternalId":{"Ref":"ExternalId"}`) {
				t.Errorf("trust policy does not require the external id: %s", trust)
			}
			if doc.Parameters["ExternalId"].Default != res.Reader.ExternalID || doc.Parameters["TrustedPrincipal"].Default != res.Reader.TrustedPrincipal {
				t.Errorf("parameter defaults = %+v, want the connection's external id and trusted principal", doc.Parameters)
			}
		})
	}
}

func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The trust policies: the reader role trusts floe's principal (or the
// middle role of a chain) only with the external id; the middle role may
// only assume the reader role (invariant A4).
func TestGenerate_Trust(t *testing.T) {
	var chain, single connCase
	for _, c := range cases() {
		switch c.name {
		case "glue-two-hop":
			chain = c
		case "s3tables-native":
			single = c
		}
	}
	res := generate(t, single)
	st := res.Reader.TrustPolicy.Statement[0]
	if st.Principal["AWS"] != "arn:aws:iam::999988887777:root" || st.Condition["StringEquals"]["sts:ExternalId"][0] != "floe-ext-7f3a" {
		t.Errorf("reader trust = %+v, want account 999988887777 with external id floe-ext-7f3a", st)
	}
	res = generate(t, chain)
	st = res.Reader.TrustPolicy.Statement[0]
	if st.Principal["AWS"] != floeRole || st.Condition["StringEquals"]["sts:ExternalId"][0] != "floe-ext-7f3a" {
		t.Errorf("reader trust in a chain = %+v, want the middle role %s with the external id", st, floeRole)
	}
	m := res.Middle
	if m == nil || m.Name != "floe-service" || m.TrustPolicy.Statement[0].Principal["AWS"] != "arn:aws:iam::999988887777:root" ||
		m.TrustPolicy.Statement[0].Condition["StringEquals"]["sts:ExternalId"][0] != "floe-own-ext" {
		t.Fatalf("middle role = %+v, want floe-service trusting 999988887777 with floe-own-ext", m)
	}
	if got := m.Policy.Statement; len(got) != 1 || !slices.Equal(got[0].Action, []string{"sts:AssumeRole"}) || !slices.Equal(got[0].Resource, []string{readerARN}) {
		t.Errorf("middle role policy = %+v, want sts:AssumeRole on %s only", got, readerARN)
	}
}

// Without a trusted principal or an external id there is no trust policy
// in the JSON answer, the notes say what to supply, and the template asks
// for them as parameters without defaults.
func TestGenerate_UnknownTrust(t *testing.T) {
	cfg := conn("bare", catalog.TypeHadoop, map[string]string{catalog.PropWarehouse: "s3://b/wh", catalog.PropRegion: "us-east-1"})
	res, err := awsaccess.Generate(cfg.AWSAccess(), awsaccess.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reader.TrustPolicy != nil || res.Reader.Name != "floe-bare-reader" {
		t.Errorf("reader = %+v, want no trust policy and the default name floe-bare-reader", res.Reader)
	}
	joined := strings.Join(res.Notes, "\n")
	for _, want := range []string{"role-arn", "trustedPrincipal", "external-id", "propagate"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q:\n%s", want, joined)
		}
	}
	tpl, err := awsaccess.Template(res, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(tpl), "Default: arn:") || !strings.Contains(string(tpl), "ExternalId:") {
		t.Errorf("template should ask for TrustedPrincipal and ExternalId without defaults:\n%s", tpl)
	}
}

// Bad or missing inputs are errors naming the prop or option.
func TestGenerate_Errors(t *testing.T) {
	glue := conn("g", catalog.TypeGlue, map[string]string{catalog.PropRegion: "us-east-1", catalog.PropCatalogID: "111122223333"})
	hadoop := conn("h", catalog.TypeHadoop, map[string]string{catalog.PropWarehouse: "s3://b/wh"})
	for _, tc := range []struct {
		name  string
		cfg   catalog.Config
		opts  awsaccess.Options
		field string
		is    error
	}{
		{"glue without data locations", glue, awsaccess.Options{}, "options.data", nil},
		{"glue without account", conn("g", catalog.TypeGlue, map[string]string{catalog.PropRegion: "us-east-1"}),
			awsaccess.Options{Data: []string{"s3://b"}}, "options.account", nil},
		{"data not on s3", glue, awsaccess.Options{Data: []string{"gs://b/x"}}, "options.data[0]", nil},
		{"deep store not on s3", hadoop, awsaccess.Options{DeepStore: "/tmp/deep"}, "options.deepStore", nil},
		{"kms alias", hadoop, awsaccess.Options{KMSKeys: []string{"arn:aws:kms:us-east-1:111122223333:alias/lake"}}, "options.kmsKeys[0]", nil},
		{"lake formation on hadoop", hadoop, awsaccess.Options{LakeFormation: true}, "options.lakeFormation", nil},
		{"bad principal", hadoop, awsaccess.Options{TrustedPrincipal: "floe"}, "options.trustedPrincipal", nil},
		{"bad role name", hadoop, awsaccess.Options{RoleName: "a/b"}, "options.roleName", nil},
		{"api not on API Gateway", conn("r", catalog.TypeREST, map[string]string{catalog.PropURI: "https://catalog.example/v1", catalog.PropSigV4: "true",
			catalog.PropRegion: "us-east-1"}), awsaccess.Options{Account: "111122223333", Data: []string{"s3://b"}}, "props.uri", nil},
		{"local warehouse", conn("l", catalog.TypeHadoop, map[string]string{catalog.PropWarehouse: "/data/wh"}), awsaccess.Options{}, "", awsaccess.ErrNothingToGrant},
		{"sql on local files", conn("s", catalog.TypeSQL, map[string]string{catalog.PropURI: "cat.db"}), awsaccess.Options{}, "", awsaccess.ErrNothingToGrant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := awsaccess.Generate(tc.cfg.AWSAccess(), tc.opts)
			if tc.is != nil {
				if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.cfg.Name) {
					t.Fatalf("Generate = %v, want %v naming connection %s", err, tc.is, tc.cfg.Name)
				}
				return
			}
			var ie *awsaccess.InputError
			if !errors.As(err, &ie) || ie.Field != tc.field {
				t.Fatalf("Generate = %v, want an InputError for %s", err, tc.field)
			}
		})
	}
	res := generate(t, cases()[0])
	if _, err := awsaccess.Template(res, awsaccess.RoleMiddle); err == nil || !strings.Contains(err.Error(), "no via-role-arn") {
		t.Errorf("middle template without a chain = %v, want an error", err)
	}
}
