package config

import (
	"errors"

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
