package catalogtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

// The validation steps, in order, as a report names them. AWS connections
// check their credentials first.
var (
	stepCredentials = "check credentials"
	validateSteps   = []string{"list namespaces", "list tables", "load table", "read data file footer"}
)

func stepNames(rep catalog.Report) []string {
	names := make([]string, 0, len(rep.Steps))
	for _, s := range rep.Steps {
		names = append(names, s.Name)
	}
	return names
}

// checkStepNames wants the documented steps, the credential check optional.
func checkStepNames(t *testing.T, rep catalog.Report) {
	t.Helper()
	names := stepNames(rep)
	if len(names) > 0 && names[0] == stepCredentials {
		names = names[1:]
	}
	if !slices.Equal(names, validateSteps) {
		t.Errorf("Validate steps = %v, want [%s] then %v", stepNames(rep), stepCredentials+" (optional)", validateSteps)
	}
}

func testValidate(t *testing.T, lake Lake, cat catalog.Catalog) {
	rep := cat.Validate(t.Context())
	checkStepNames(t, rep)
	if !rep.OK || rep.Err() != nil {
		t.Errorf("Validate = %+v (err %v), want ok", rep, rep.Err())
	}
	for _, s := range rep.Steps {
		if s.Status != catalog.StepOK || s.Error != "" || s.Permission != "" {
			t.Errorf("step %q: %s %q %q, want ok with no error", s.Name, s.Status, s.Error, s.Permission)
		}
	}
	if len(rep.Steps) < len(validateSteps) {
		return
	}
	list, load := rep.Steps[len(rep.Steps)-3], rep.Steps[len(rep.Steps)-2]
	found, _ := strings.CutPrefix(list.Detail, "found ")
	if !slices.Contains(lake.Namespaces, strings.Split(found, ".")[0]) || !strings.HasPrefix(load.Detail, found+" at ") {
		t.Errorf("list step found %q, load step %q: want a table of the lake, loaded", list.Detail, load.Detail)
	}
}

// testBroken: the broken connection fails Open or its calls with the
// backend's kind; Validate stops at the first failing step, names it in
// Err and skips the rest; no secret shows.
func testBroken(t *testing.T, lake Lake) {
	cat, err := lake.Broken(t)
	if err != nil {
		wantKind(t, "Open(broken)", err, lake.BrokenKind)
		noSecrets(t, "Open(broken) error", err.Error(), lake.BrokenSecrets)
		return
	}
	t.Cleanup(func() { _ = cat.Close() })
	_, err = cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{})
	wantKind(t, "ListNamespaces(broken)", err, lake.BrokenKind)
	noSecrets(t, "ListNamespaces(broken) error", err.Error(), lake.BrokenSecrets)
	_, err = cat.LoadTable(t.Context(), lake.Table)
	wantKind(t, "LoadTable(broken)", err, lake.BrokenKind)
	noSecrets(t, "LoadTable(broken) error", err.Error(), lake.BrokenSecrets)

	rep := cat.Validate(t.Context())
	checkStepNames(t, rep)
	failed := slices.IndexFunc(rep.Steps, func(s catalog.Step) bool { return s.Status == catalog.StepFailed })
	if rep.OK || failed < 0 {
		t.Fatalf("Validate(broken) = %+v, want a failed step", rep)
	}
	for _, s := range rep.Steps[:failed] {
		if s.Status != catalog.StepOK {
			t.Errorf("step %q before the failure: %s, want ok", s.Name, s.Status)
		}
	}
	for _, s := range rep.Steps[failed+1:] {
		if s.Status != catalog.StepSkipped {
			t.Errorf("step %q after the failure: %s, want skipped", s.Name, s.Status)
		}
	}
	f := rep.Steps[failed]
	if f.Error == "" || rep.Err() == nil || !strings.Contains(rep.Err().Error(), f.Name) {
		t.Errorf("failed step %q: error %q, report error %v; want both, naming the step", f.Name, f.Error, rep.Err())
	}
	noSecrets(t, "Validate(broken) report", reportJSON(t, rep), lake.BrokenSecrets)
}
