package catalogtest

import (
	"slices"
	"testing"

	"github.com/floehq/floe/catalog"
)

// maxPages bounds a page walk, so a token that never ends fails the test.
const maxPages = 50

// walk pages through a listing of size-1 pages and returns every item's
// name. Each page holds at most one item; the last one has no token.
func walk[T any](t *testing.T, what string, list func(catalog.PageRequest) (catalog.Page[T], error), name func(T) string) []string {
	t.Helper()
	var names []string
	req := catalog.PageRequest{Size: 1}
	for range maxPages {
		p, err := list(req)
		if err != nil {
			t.Fatalf("%s page %q: %v", what, req.Token, err)
		}
		if len(p.Items) > 1 {
			t.Fatalf("%s page of size 1 holds %d items", what, len(p.Items))
		}
		for _, it := range p.Items {
			names = append(names, name(it))
		}
		if p.NextToken == "" {
			return names
		}
		if p.NextToken == req.Token {
			t.Fatalf("%s: next token %q repeats the one asked for", what, p.NextToken)
		}
		req.Token = p.NextToken
	}
	t.Fatalf("%s: still a next token after %d pages", what, maxPages)
	return nil
}

// listAll lists in one page of the largest size.
func listAll[T any](t *testing.T, what string, list func(catalog.PageRequest) (catalog.Page[T], error), name func(T) string) []string {
	t.Helper()
	p, err := list(catalog.PageRequest{Size: catalog.MaxPageSize})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if p.NextToken != "" {
		t.Fatalf("%s: a next token %q on a page of %d with room for more", what, p.NextToken, len(p.Items))
	}
	names := make([]string, 0, len(p.Items))
	for _, it := range p.Items {
		names = append(names, name(it))
	}
	return names
}

// checkListing compares a one-page listing and a page walk with want.
func checkListing(t *testing.T, what string, all, walked, want []string) {
	t.Helper()
	if !slices.Equal(sortedCopy(all), sortedCopy(want)) {
		t.Errorf("%s = %v, want %v", what, all, want)
	}
	if !slices.Equal(walked, all) {
		t.Errorf("%s page by page = %v, want %v in the one-page order", what, walked, all)
	}
}

func testListNamespaces(t *testing.T, lake Lake, cat catalog.Catalog) {
	list := func(req catalog.PageRequest) (catalog.Page[catalog.Namespace], error) {
		return cat.ListNamespaces(t.Context(), nil, req)
	}
	name := func(n catalog.Namespace) string { return n.String() }
	all := listAll(t, "ListNamespaces", list, name)
	checkListing(t, "ListNamespaces", all, walk(t, "ListNamespaces", list, name), lake.Namespaces)
}

func testListTables(t *testing.T, lake Lake, cat catalog.Catalog) {
	list := func(req catalog.PageRequest) (catalog.Page[catalog.TableIdent], error) {
		return cat.ListTables(t.Context(), lake.Table.Namespace, req)
	}
	var wrongNS []string
	name := func(id catalog.TableIdent) string {
		if !slices.Equal(id.Namespace, lake.Table.Namespace) {
			wrongNS = append(wrongNS, id.String())
		}
		return id.Name
	}
	all := listAll(t, "ListTables", list, name)
	checkListing(t, "ListTables", all, walk(t, "ListTables", list, name), lake.Tables)
	if len(wrongNS) > 0 {
		t.Errorf("ListTables(%v) answered tables of other namespaces: %v", lake.Table.Namespace, wrongNS)
	}
}
