package catalog

import (
	"context"
	"log/slog"
	"slices"
	"strings"
)

// TypeInfo describes one connection type for the connection form and the
// API (GET /api/v1/catalog-types): its label and every prop and secret a
// form asks for. Props a form does not list (timeout, endpoint, data.*,
// ...) are still accepted; the package documentation lists them all.
type TypeInfo struct {
	Type  string     `json:"type"`
	Label string     `json:"label"`
	Props []PropInfo `json:"props"`
}

// PropInfo is one prop or secret of a connection type.
type PropInfo struct {
	Name        string `json:"name"`
	Required    bool   `json:"required"`
	Secret      bool   `json:"secret"` // goes in Config.Secrets; never shown again
	Description string `json:"description"`
	// Choices are the values the prop takes, when it is one of a few;
	// Default is the one used when the prop is unset ("" : none).
	Choices []string `json:"choices,omitempty"`
	Default string   `json:"default,omitempty"`
}

// typeDef is everything floe knows about one connection type: what a form
// shows, how its props are checked and how it opens. Adding a type is a
// file with its typeDef and a line in typeDefs.
type typeDef struct {
	info     TypeInfo
	validate func(*validator)
	open     func(context.Context, Config, *slog.Logger) (Catalog, error)
}

// typeDefs lists the connection types, in the order forms offer them.
func typeDefs() []typeDef {
	return []typeDef{sqlType(), restType(), s3TablesType(), glueType(), hadoopType()}
}

// lookupType finds a type's definition by name.
func lookupType(name string) (typeDef, bool) {
	defs := typeDefs()
	i := slices.IndexFunc(defs, func(d typeDef) bool { return d.info.Type == name })
	if i < 0 {
		return typeDef{}, false
	}
	return defs[i], true
}

// Types describes every connection type floe reads, in the order forms
// offer them.
func Types() []TypeInfo {
	defs := typeDefs()
	out := make([]TypeInfo, 0, len(defs))
	for _, d := range defs {
		out = append(out, d.info)
	}
	return out
}

// TypeNames lists the connection types, in the order forms offer them.
func TypeNames() []string {
	defs := typeDefs()
	out := make([]string, 0, len(defs))
	for _, d := range defs {
		out = append(out, d.info.Type)
	}
	return out
}

// typeList joins the type names for messages: "a, b, c or d".
func typeList(last string) string {
	names := TypeNames()
	return strings.Join(names[:len(names)-1], ", ") + last + names[len(names)-1]
}

// prop and secret build PropInfo rows.
func prop(name, description string) PropInfo { return PropInfo{Name: name, Description: description} }

func requiredProp(name, description string) PropInfo {
	return PropInfo{Name: name, Required: true, Description: description}
}

func choiceProp(name, description, def string, choices ...string) PropInfo {
	return PropInfo{Name: name, Description: description, Choices: choices, Default: def}
}

func secretProp(name, description string) PropInfo {
	return PropInfo{Name: name, Secret: true, Description: description}
}

// awsRoleProps are the role props every AWS-reaching type offers.
func awsRoleProps() []PropInfo {
	return []PropInfo{
		prop(PropRoleARN, "IAM role to assume (arn:aws:iam::<account>:role/<name>)"),
		prop(PropExternalID, "External id of that role"),
	}
}

// awsSecretProps are the AWS credential secrets.
func awsSecretProps() []PropInfo {
	return []PropInfo{
		secretProp(SecretAccessKeyID, "AWS access key id"),
		secretProp(SecretSecretAccessKey, "AWS secret access key"),
		secretProp(SecretSessionToken, "AWS session token"),
	}
}

func sqlType() typeDef {
	return typeDef{info: TypeInfo{Type: TypeSQL, Label: "SQL catalog (sqlite, Postgres)", Props: []PropInfo{
		requiredProp(PropURI, "Database: a sqlite file path or a postgres:// URL"),
		prop(PropSQLCatalogName, "Catalog name (catalog_name column)"),
		prop(PropWarehouse, "Warehouse"),
		choiceProp(PropDialect, "Dialect", "", "sqlite", "postgres"),
		secretProp(SecretPassword, "Password (Postgres)"),
	}}, validate: (*validator).sql, open: openSQL}
}

func restType() typeDef {
	props := []PropInfo{
		requiredProp(PropURI, "Catalog URL"),
		prop(PropWarehouse, "Warehouse"),
		prop(PropPrefix, "Prefix"),
		prop(PropScope, "OAuth2 scope"),
		prop(PropOAuthURI, "OAuth2 server URL"),
		choiceProp(PropSigV4, "Sign requests with AWS SigV4", "", "true"),
		prop(PropSigningName, "SigV4 signing name"),
		prop(PropSigningRegion, "SigV4 signing region"),
		prop(PropRegion, "AWS region"),
	}
	props = append(props, awsRoleProps()...)
	props = append(props, secretProp(SecretCredential, "OAuth2 client credential (id:secret)"), secretProp(SecretToken, "Bearer token"))
	props = append(props, awsSecretProps()...)
	return typeDef{info: TypeInfo{Type: TypeREST, Label: "Iceberg REST catalog", Props: props},
		validate: (*validator).rest, open: openREST}
}

func s3TablesType() typeDef {
	props := []PropInfo{
		requiredProp(PropARN, "Table bucket ARN (arn:aws:s3tables:<region>:<account>:bucket/<name>)"),
		choiceProp(PropMode, "Mode", ModeAuto, ModeAuto, ModeREST, ModeNative),
		prop(PropRegion, "Region (from the ARN)"),
	}
	props = append(append(props, awsRoleProps()...), awsSecretProps()...)
	return typeDef{info: TypeInfo{Type: TypeS3Tables, Label: "Amazon S3 Tables", Props: props},
		validate: (*validator).s3tables, open: openS3Tables}
}

func glueType() typeDef {
	props := []PropInfo{
		requiredProp(PropRegion, "Region"),
		prop(PropCatalogID, "Catalog id (12-digit account id)"),
		choiceProp(PropMode, "Mode", ModeNative, ModeNative, ModeREST),
		prop(PropWarehouse, "Warehouse (REST mode)"),
	}
	props = append(append(props, awsRoleProps()...), awsSecretProps()...)
	return typeDef{info: TypeInfo{Type: TypeGlue, Label: "AWS Glue", Props: props},
		validate: (*validator).glue, open: openGlue}
}

func hadoopType() typeDef {
	props := []PropInfo{
		requiredProp(PropWarehouse, "Warehouse: a file path, file:// or s3:// URL"),
		prop(PropRegion, "AWS region (s3://)"),
	}
	props = append(append(props, awsRoleProps()...), awsSecretProps()...)
	return typeDef{info: TypeInfo{Type: TypeHadoop, Label: "Hadoop warehouse (files)", Props: props},
		validate: func(v *validator) { v.require(PropWarehouse) }, open: openHadoop}
}
