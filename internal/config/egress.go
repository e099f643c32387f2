package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/floehq/floe/internal/egress"
)

// validateEgress checks security.egress and that the Pinot and deep store
// addresses written as literals are ones it admits, naming the field.
func (c *Config) validateEgress() *FieldError {
	p, err := egress.New(c.Security.Egress, nil)
	if err != nil {
		var fe *egress.FieldError
		if errors.As(err, &fe) {
			return &FieldError{"security.egress." + fe.Field, fe.Msg}
		}
		return &FieldError{"security.egress", err.Error()}
	}
	for _, u := range []struct {
		field, url string
		kind       egress.Kind
	}{
		{"pinot.controllerURL", c.Pinot.ControllerURL, egress.Pinot},
		{"pinot.brokerURL", c.Pinot.BrokerURL, egress.Pinot},
		{"pinot.deepStore.endpoint", c.Pinot.DeepStore.Endpoint, egress.DeepStore},
	} {
		if err := p.CheckURL(u.kind, u.url); err != nil {
			return &FieldError{u.field, err.Error()}
		}
	}
	return nil
}

// EgressPolicy is the egress policy security.egress describes (Validate
// has checked it; were it invalid, the default policy, which admits
// public addresses only).
func (s Security) EgressPolicy() *egress.Policy {
	p, err := egress.New(s.Egress, nil)
	if err != nil {
		return egress.Default()
	}
	return p
}

// egressEnv lists the FLOE_SECURITY_EGRESS_* overrides.
func egressEnv() []envVar {
	vars := []envVar{
		{"FLOE_SECURITY_EGRESS_ALLOW", "security.egress.allow", list(func(c *Config) *[]string { return &c.Security.Egress.Allow })},
		{"FLOE_SECURITY_EGRESS_LISTEDONLY", "security.egress.listedOnly", boolean(func(c *Config) *bool { return &c.Security.Egress.ListedOnly })},
	}
	for _, k := range egress.Kinds() {
		rule := func(c *Config) *egress.Rule { return egressRule(&c.Security.Egress, k) }
		name := fmt.Sprintf("FLOE_SECURITY_EGRESS_%s", strings.ToUpper(string(k)))
		vars = append(vars,
			envVar{name + "_ALLOW", "security.egress." + string(k) + ".allow", list(func(c *Config) *[]string { return &rule(c).Allow })},
			envVar{name + "_LISTEDONLY", "security.egress." + string(k) + ".listedOnly", boolean(func(c *Config) *bool { return &rule(c).ListedOnly })})
	}
	return vars
}

// egressRule returns the rule of kind k in cfg.
func egressRule(cfg *egress.Config, k egress.Kind) *egress.Rule {
	switch k {
	case egress.Catalog:
		return &cfg.Catalog
	case egress.OAuth:
		return &cfg.OAuth
	case egress.AWS:
		return &cfg.AWS
	case egress.Pinot:
		return &cfg.Pinot
	}
	return &cfg.DeepStore
}
