package catalog_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

// validRequired is one valid value for each required prop.
var validRequired = map[string]string{
	catalog.PropURI:       "https://catalog.example.com/iceberg",
	catalog.PropARN:       "arn:aws:s3tables:us-east-1:123456789012:bucket/lake",
	catalog.PropRegion:    "us-east-1",
	catalog.PropWarehouse: "s3://lake/wh",
}

// minimal is a config of typ with only the required props set.
func minimal(t *testing.T, info catalog.TypeInfo) catalog.Config {
	t.Helper()
	cfg := catalog.Config{Name: "c", Type: info.Type, Props: map[string]string{}}
	for _, p := range info.Props {
		if p.Required {
			v, ok := validRequired[p.Name]
			if !ok {
				t.Fatalf("type %s: no example value for required prop %s", info.Type, p.Name)
			}
			cfg.Props[p.Name] = v
		}
	}
	if info.Type == catalog.TypeSQL {
		cfg.Props[catalog.PropURI] = "/var/lib/floe/catalog.db"
	}
	return cfg
}

// The definitions Types serves are the ones Validate applies: each
// type's required props are required, its choices accepted, its secrets
// refused in props, and every type opens through its definition.
func TestTypes_AgreeWithValidate(t *testing.T) {
	types := catalog.Types()
	var names []string
	for _, info := range types {
		names = append(names, info.Type)
		t.Run(info.Type, func(t *testing.T) {
			if info.Label == "" || len(info.Props) == 0 {
				t.Fatalf("type %s has no label or props: %+v", info.Type, info)
			}
			cfg := minimal(t, info)
			if err := cfg.Validate(); err != nil {
				t.Fatalf("Validate(required props only) = %v", err)
			}
			for _, p := range info.Props {
				if p.Description == "" {
					t.Errorf("prop %s has no description", p.Name)
				}
				checkProp(t, cfg, p)
			}
		})
	}
	if !slices.Equal(names, catalog.TypeNames()) {
		t.Errorf("Types = %v, TypeNames = %v", names, catalog.TypeNames())
	}
	err := catalog.Config{Name: "c", Type: "ftp"}.Validate()
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("Validate(unknown type) = %v, want every type named (%s missing)", err, n)
		}
	}
}

// checkProp checks one prop's definition against Validate.
func checkProp(t *testing.T, cfg catalog.Config, p catalog.PropInfo) {
	t.Helper()
	field := "connections.c.props." + p.Name
	switch {
	case p.Required:
		c := withProps(cfg, p.Name, "")
		if err := c.Validate(); !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate(without %s) = %v, want an error naming %s", p.Name, err, field)
		}
	case p.Secret:
		c := withProps(cfg, p.Name, "a-value-that-is-a-credential:with-a-secret")
		if err := c.Validate(); !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), "secrets."+p.Name) {
			t.Errorf("Validate(secret %s in props) = %v, want it sent to secrets.%s", p.Name, err, p.Name)
		}
	}
	if p.Default != "" && !slices.Contains(p.Choices, p.Default) {
		t.Errorf("prop %s: default %q is not one of its choices %v", p.Name, p.Default, p.Choices)
	}
	for _, choice := range p.Choices {
		// A choice may still clash with another prop (dialect postgres
		// with a sqlite path); only the prop itself must not be refused.
		if err := withProps(cfg, p.Name, choice).Validate(); err != nil && strings.Contains(err.Error(), field) {
			t.Errorf("Validate(%s=%s) = %v, want the choice accepted", p.Name, choice, err)
		}
	}
	if len(p.Choices) > 0 {
		if err := withProps(cfg, p.Name, "not-a-choice").Validate(); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate(%s=not-a-choice) = %v, want an error naming %s", p.Name, err, field)
		}
	}
}

// withProps is cfg with props[key] = value ("" removes it).
func withProps(cfg catalog.Config, key, value string) catalog.Config {
	props := make(map[string]string, len(cfg.Props)+1)
	for k, v := range cfg.Props {
		props[k] = v
	}
	delete(props, key)
	if value != "" {
		props[key] = value
	}
	cfg.Props = props
	return cfg
}
