package catalogtest

import (
	"fmt"
	"testing"

	"github.com/floehq/floe/catalog"
)

// testSecretsNotInErrors makes the working connection fail in every way a
// caller can provoke (missing table, missing namespace, bad page token)
// and looks for its secret values in the errors and in a report.
func testSecretsNotInErrors(t *testing.T, lake Lake, cat catalog.Catalog) {
	ctx := t.Context()
	missingNS := []string{"floe_no_such_namespace"}
	var errs []error
	_, err := cat.LoadTable(ctx, catalog.TableIdent{Namespace: lake.Table.Namespace, Name: "floe_no_such_table"})
	errs = append(errs, err)
	_, err = cat.LoadTable(ctx, catalog.TableIdent{Namespace: missingNS, Name: "t"})
	errs = append(errs, err)
	_, err = cat.ListTables(ctx, missingNS, catalog.PageRequest{})
	errs = append(errs, err)
	_, err = cat.ListTables(ctx, lake.Table.Namespace, catalog.PageRequest{Token: "floe-not-a-token"})
	errs = append(errs, err)
	_, err = cat.Describe(ctx, catalog.TableIdent{Name: "no-namespace"})
	errs = append(errs, err)
	if errs[0] == nil || errs[1] == nil || errs[4] == nil {
		t.Fatalf("errors = %v, want loads of missing tables and a bad identifier to fail", errs)
	}
	for i, err := range errs {
		if err != nil {
			noSecrets(t, fmt.Sprintf("error %d", i), err.Error(), lake.Secrets)
			noSecrets(t, fmt.Sprintf("error %d (%%+v)", i), fmt.Sprintf("%+v", err), lake.Secrets)
		}
	}
	noSecrets(t, "Validate report", reportJSON(t, cat.Validate(ctx)), lake.Secrets)
}
