//go:build integration

package main

import (
	"encoding/json"
	"slices"
	"testing"
)

// apiCatalogType is one entry of GET /api/v1/catalog-types.
type apiCatalogType struct {
	Type  string `json:"type"`
	Label string `json:"label"`
	Props []struct {
		Name        string   `json:"name"`
		Required    bool     `json:"required"`
		Secret      bool     `json:"secret"`
		Description string   `json:"description"`
		Choices     []string `json:"choices"`
		Default     string   `json:"default"`
	} `json:"props"`
}

// formField is one field of the connection form as the browser shows it.
type formField struct {
	Name     string   `json:"name"`
	Label    string   `json:"label"`
	Required bool     `json:"required"`
	Password bool     `json:"password"`
	Choices  []string `json:"choices"`
}

// readFormFields reads the fields the connection form shows now.
const readFormFields = `JSON.stringify([...document.querySelectorAll("#conn-form .fields [name]")].map((el) => ({
	name: el.name, label: el.closest("label").firstChild.textContent, required: el.required,
	password: el.type === "password", choices: el.tagName === "SELECT" ? [...el.options].map((o) => o.value) : null })))`

// wantFormFields is what the form should show for one API type: the
// props, then the secrets, each in the API's order.
func wantFormFields(ct apiCatalogType) []formField {
	var props, secrets []formField
	for _, p := range ct.Props {
		f := formField{Name: "prop:" + p.Name, Label: p.Description, Required: p.Required}
		if p.Required {
			f.Label += " *"
		}
		if p.Choices != nil {
			f.Choices, f.Required = p.Choices, false
			if p.Default == "" {
				f.Choices = append([]string{""}, p.Choices...)
			}
		}
		if p.Secret {
			secrets = append(secrets, formField{Name: "secret:" + p.Name, Label: p.Description, Password: true})
			continue
		}
		props = append(props, f)
	}
	return append(props, secrets...)
}

// testConnectionForm: the wizard's connection form offers the types GET
// /api/v1/catalog-types answers, with each type's props and secrets as
// the API describes them (name, label, required, secret, choices).
func testConnectionForm(t *testing.T, tb *tab, base string) {
	var answer struct {
		Types []apiCatalogType `json:"types"`
	}
	apiGet(t, base+"/api/v1/catalog-types", testReadToken, &answer)
	if len(answer.Types) == 0 {
		t.Fatal("GET /api/v1/catalog-types answered no type")
	}
	openAt(tb, base, testAdminToken, "#/onboard")
	tb.waitJS("the connection form", `document.querySelector("#conn-form #conn-type")`)
	var offered [][2]string
	if err := json.Unmarshal([]byte(eval[string](tb, `JSON.stringify([...document.querySelectorAll("#conn-type option")].map((o) => [o.value, o.textContent]))`)), &offered); err != nil {
		t.Fatal(err)
	}
	var want [][2]string
	for _, ct := range answer.Types {
		want = append(want, [2]string{ct.Type, ct.Label})
	}
	if !slices.Equal(offered, want) {
		t.Errorf("type select offers %v, the API %v", offered, want)
	}
	for _, ct := range answer.Types {
		tb.choose("#conn-type", ct.Type)
		var got []formField
		if err := json.Unmarshal([]byte(eval[string](tb, readFormFields)), &got); err != nil {
			t.Fatalf("read the %s form: %v", ct.Type, err)
		}
		if w := wantFormFields(ct); !slices.EqualFunc(got, w, sameField) {
			t.Errorf("%s form shows\n%+v\nthe API says\n%+v", ct.Type, got, w)
		}
	}
	tb.choose("#conn-type", answer.Types[len(answer.Types)-1].Type)
	tb.screenshot("connection-form")
}

func sameField(a, b formField) bool {
	return a.Name == b.Name && a.Label == b.Label && a.Required == b.Required && a.Password == b.Password && slices.Equal(a.Choices, b.Choices)
}
