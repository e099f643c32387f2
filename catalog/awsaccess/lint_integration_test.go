//go:build integration

package awsaccess_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog/awsaccess"
	"github.com/floehq/floe/internal/testpeer"
)

// cfnLint runs cfn-lint (from the repo venv) once on templates (file name
// → content) and returns its findings ("" when there are none: no error,
// no warning, no informational finding).
func cfnLint(t *testing.T, templates map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"--include-checks", "I", "--format", "parseable"}
	for name, tpl := range templates {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, tpl, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	out, err := exec.CommandContext(t.Context(), testpeer.VenvBin(t, "cfn-lint"), args...).CombinedOutput()
	if err != nil && len(out) == 0 {
		t.Fatalf("cfn-lint: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// parliament runs parliament on a policy (given on stdin) with every
// severity shown and returns its findings ("" when there are none).
func parliament(t *testing.T, p awsaccess.Policy) string {
	t.Helper()
	doc, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), testpeer.VenvBin(t, "parliament"), "--minimum_severity", "INFO", "--json")
	cmd.Stdin = bytes.NewReader(doc)
	out, err := cmd.CombinedOutput()
	if err != nil && len(out) == 0 {
		t.Fatalf("parliament: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// Every generated template passes cfn-lint and every generated policy
// passes parliament, for each connection kind (reader and middle roles):
// invariant A5.
func TestGenerate_PassesCfnLintAndParliament(t *testing.T) {
	templates := map[string][]byte{}
	for _, c := range cases() {
		res := generate(t, c)
		roles := map[string]*awsaccess.Role{awsaccess.RoleReader: &res.Reader}
		if res.Middle != nil {
			roles[awsaccess.RoleMiddle] = res.Middle
		}
		for which, role := range roles {
			tpl, err := awsaccess.Template(res, which)
			if err != nil {
				t.Fatal(err)
			}
			templates[c.name+"-"+which+".yaml"] = tpl
			if out := parliament(t, role.Policy); out != "" {
				t.Errorf("%s: parliament on the %s policy:\n%s", c.name, which, out)
			}
		}
	}
	if len(templates) != len(cases())+1 {
		t.Fatalf("%d templates, want one per case plus the middle role", len(templates))
	}
	if out := cfnLint(t, templates); out != "" {
		t.Errorf("cfn-lint:\n%s", out)
	}
}

// The linters really look: a policy granting glue:GetTable on an S3 ARN
// and a template with an unknown property are both reported.
func TestLinters_ReportBadDocuments(t *testing.T) {
	bad := awsaccess.Policy{Version: awsaccess.PolicyVersion, Statement: []awsaccess.Statement{{Sid: "Wrong", Effect: "Allow",
		Action: []string{"glue:GetTable"}, Resource: []string{"arn:aws:s3:::bucket/key"}}}}
	if out := parliament(t, bad); !strings.Contains(out, "RESOURCE_MISMATCH") {
		t.Errorf("parliament on a mismatched resource = %q, want RESOURCE_MISMATCH", out)
	}
	res := generate(t, cases()[0])
	tpl, err := awsaccess.Template(res, "")
	if err != nil {
		t.Fatal(err)
	}
	broken := bytes.Replace(tpl, []byte("MaxSessionDuration: 3600"), []byte("MaxSessionDuration: 60"), 1)
	if out := cfnLint(t, map[string][]byte{"broken.yaml": broken}); !strings.Contains(out, "E3034") {
		t.Errorf("cfn-lint on MaxSessionDuration 60 = %q, want a finding", out)
	}
}
