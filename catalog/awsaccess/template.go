package awsaccess

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Template roles.
const (
	RoleReader = "reader" // the role floe assumes to read (default)
	RoleMiddle = "middle" // floe's own role of a two-hop chain
)

// omap is a YAML mapping that keeps its key order.
type omap []kv

type kv struct {
	k string
	v any
}

// MarshalYAML encodes the pairs in order.
func (m omap) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range m {
		var v yaml.Node
		if err := v.Encode(p.v); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p.k}, &v)
	}
	return n, nil
}

func ref(name string) omap { return omap{{"Ref", name}} }

// Template renders a CloudFormation template (YAML) for one role of res:
// the role, its inline policy (the same document as Role.Policy), its
// trust policy (principal and external id as parameters, defaulting to
// what the connection says) and the RoleArn output.
func Template(res *Result, which string) ([]byte, error) {
	role := &res.Reader
	switch which {
	case "", RoleReader:
	case RoleMiddle:
		if res.Middle == nil {
			return nil, &InputError{Field: "role", Msg: "the connection has no via-role-arn: there is no middle role"}
		}
		role = res.Middle
	default:
		return nil, &InputError{Field: "role", Msg: fmt.Sprintf("unknown role %q (want reader or middle)", which)}
	}
	withExt := true
	desc := fmt.Sprintf("floe reader role for connection %s (%s, %s): read-only access, assumed with an external id", res.Connection, res.Type, res.Access)
	if role == res.Middle {
		which, withExt = RoleMiddle, role.ExternalID != ""
		desc = fmt.Sprintf("floe's own role for connection %s: may only assume the reader role %s", res.Connection, res.Reader.ARN)
	}
	resources := omap{{"Role", omap{
		{"Type", "AWS::IAM::Role"},
		{"Properties", roleProperties(role, desc, withExt)},
	}}}
	outputs := omap{{"RoleArn", omap{
		{"Description", "the role's ARN: the connection's " + arnProp(which)},
		{"Value", omap{{"Fn::GetAtt", []string{"Role", "Arn"}}}},
	}}}
	if role == &res.Reader { // the reader reads the notification queue
		resources = append(resources, notifyResources(res.Notifications)...)
		outputs = append(outputs, notifyOutputs(res.Notifications)...)
	}
	doc := omap{
		{"AWSTemplateFormatVersion", "2010-09-09"},
		{"Description", desc},
		{"Parameters", parameters(role, withExt)},
		{"Resources", resources},
		{"Outputs", outputs},
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode template for connection %s: %w", res.Connection, err)
	}
	return buf.Bytes(), nil
}

func arnProp(which string) string {
	if which == RoleMiddle {
		return "props.via-role-arn"
	}
	return "props.role-arn"
}

func parameters(role *Role, withExt bool) omap {
	name := omap{{"Type", "String"}, {"Default", role.Name}, {"AllowedPattern", `[\w+=,.@-]{1,64}`},
		{"Description", "name of the role"}}
	principal := omap{{"Type", "String"}, {"AllowedPattern", `(\d{12}|arn:aws[a-z-]*:(iam|sts)::\d{12}:\S+)`},
		{"Description", "floe's principal, allowed to assume the role: an IAM role or user ARN, or arn:aws:iam::<account>:root"}}
	if role.TrustedPrincipal != "" {
		principal = append(principal[:1], append(omap{{"Default", role.TrustedPrincipal}}, principal[1:]...)...)
	}
	params := omap{{"RoleName", name}, {"TrustedPrincipal", principal}}
	if withExt {
		ext := omap{{"Type", "String"}, {"MinLength", 2}, {"MaxLength", 1224}, {"AllowedPattern", `[\w+=,.@:/-]+`},
			{"Description", "the external id floe sends when it assumes the role (the connection's external-id)"}}
		if role.ExternalID != "" {
			ext = append(ext[:1], append(omap{{"Default", role.ExternalID}}, ext[1:]...)...)
		}
		params = append(params, kv{"ExternalId", ext})
	}
	return params
}

func roleProperties(role *Role, desc string, withExt bool) omap {
	trust := omap{{"Sid", "FloeAssumesThisRole"}, {"Effect", "Allow"},
		{"Principal", omap{{"AWS", ref("TrustedPrincipal")}}}, {"Action", []string{"sts:AssumeRole"}}}
	if withExt {
		trust[0].v = "FloeAssumesThisRoleWithExternalId"
		trust = append(trust, kv{"Condition", omap{{"StringEquals", omap{{"sts:ExternalId", ref("ExternalId")}}}}})
	}
	return omap{
		{"RoleName", ref("RoleName")},
		{"Path", role.Path},
		{"Description", truncate(desc, 1000)},
		{"MaxSessionDuration", 3600},
		{"AssumeRolePolicyDocument", omap{{"Version", PolicyVersion}, {"Statement", []omap{trust}}}},
		{"Policies", []omap{{{"PolicyName", "floe-access"}, {"PolicyDocument", role.Policy}}}},
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
