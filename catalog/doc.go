// Package catalog reaches Iceberg catalogs for floe: Amazon S3 Tables (its
// Iceberg REST endpoint or the native S3 Tables API), AWS Glue (native or
// Iceberg REST), any Iceberg REST catalog, SQL catalogs (sqlite, Postgres;
// the layout PyIceberg and Java's JDBC catalog share) and Hadoop warehouses.
//
// floe only reads from catalogs: every connection works with read-only
// credentials, and nothing here creates, commits or drops anything.
//
// A connection is described by a [Config] (type, props, secrets), checked
// by [Config.Validate] and opened with [Open]. The resulting [Catalog]
// browses namespaces and tables with pagination, describes and loads tables
// for the watcher, and validates itself step by step ([Catalog.Validate]),
// naming the AWS permission and resource that is missing when a step fails.
//
// # Props
//
// Common: uri, warehouse, timeout (per call, Go duration, default 30s),
// region. Passed through to the table FileIO: every "s3.*" prop, and the
// "s3.*" secrets (s3.access-key-id, s3.secret-access-key,
// s3.session-token) over them.
//
//	rest      uri (required), warehouse, prefix, scope, oauth2-server-uri,
//	          sigv4 ("true"), signing-name, signing-region;
//	          secrets: credential ("id:secret", OAuth2 client credentials), token,
//	          password (HTTP Basic with the uri's user)
//	s3tables  arn (arn:aws:s3tables:<region>:<account>:bucket/<name>, required;
//	          region and account come from it), mode (auto|rest|native,
//	          default auto: REST when its /v1/config answers, else native)
//	glue      region (required), catalog-id (account id), mode (native|rest,
//	          default native), warehouse (REST; defaults to catalog-id)
//	sql       uri (DSN: a sqlite file path, a postgres:// URL or, with
//	          dialect postgres, a key=value string; required), dialect
//	          (sqlite|postgres, guessed from uri), driver ("sqlite" for
//	          sqlite, "pgx" for postgres: the only two, see sqloptions.go for
//	          the options each may not carry), catalog-name (the
//	          catalog_name column, default the connection name), warehouse;
//	          secrets: password (put into the postgres DSN)
//	hadoop    warehouse (file path, file:// or s3:// URL, required)
//
// [Types] describes each type's form props and secrets (required, secret,
// choices, a description) from the same definitions Validate and Open
// use (types.go); the API serves it to the status page's connection form.
// A new type is a file with its definition and one line in typeDefs.
//
// # AWS credentials and endpoints
//
// The catalog (metastore) side uses secrets access-key-id,
// secret-access-key, session-token when given, else the AWS default chain.
// Props role-arn and external-id assume a role from those base credentials;
// via-role-arn (with via-external-id) adds a first hop, so floe's own role
// assumes the customer's role as cross-account connections do. role-session-name
// names the sessions. The data (storage) side uses the same credentials
// unless any data.* key is set: data.role-arn, data.external-id,
// data.via-role-arn, data.via-external-id, data.region and secrets
// data.access-key-id, data.secret-access-key, data.session-token.
//
// Endpoints follow the AWS_ENDPOINT_URL conventions: props endpoint (every
// AWS service), endpoint.s3, endpoint.s3tables, endpoint.glue, endpoint.sts
// win over the environment variables AWS_ENDPOINT_URL_<SERVICE> and
// AWS_ENDPOINT_URL, so every AWS call can go to a local emulator.
//
// # Validate
//
// [Catalog.Validate] runs: check credentials (AWS types: STS
// GetCallerIdentity, which needs no permission), list namespaces, list
// tables, load one table, read one data file's Parquet footer. A failed
// step names the permission that is missing (s3tables:ListNamespaces,
// s3tables:GetTableMetadataLocation, glue:GetTable, s3:GetObject, ...) and
// the resource; later steps are skipped.
//
// The permission each step needs comes from the table of package
// [github.com/floehq/floe/catalog/awsaccess], which also generates the IAM
// policy, trust policy and CloudFormation template for a connection
// ([Config.AWSAccess]). [ValidateWithRetry] runs the check again while a
// step is denied, for a bounded time, because IAM changes can take a
// minute to propagate to a freshly created role.
//
// # Local files and secret references
//
// [Open] never creates a file: a sqlite catalog file and a local Hadoop
// warehouse must exist ([ErrBadCatalog] otherwise). Which local files a
// connection may open at all is the caller's [Policy]: sqlite files and
// file:// warehouses only under its LocalRoots, never under "/" as a whole
// or the [SystemDirs]. A Config from [Policy.Resolve] also guards what the
// catalog names: every read of a table's files through a local FileIO is
// checked against the roots when it happens, so a catalog that answers a
// file:// location outside them gets ErrAccessDenied, not the file (the
// metadata file a sql catalog's library opens itself is the exception). A secret may be a reference instead of a value,
// ${env:NAME} or ${file:/path}, read by [Policy.Resolve] at each open (and
// only when the policy lists the variable or the file's directory), so
// the store never holds the value; Open refuses an unresolved reference.
//
// # Errors
//
// Calls return *[Error] values carrying the operation, the resource, the
// permission it needs and a category sentinel ([ErrNotFound],
// [ErrAccessDenied], [ErrBadCredentials], [ErrUnreachable], [ErrTimeout],
// [ErrBadMetadata], [ErrWrongRegion], [ErrBadCatalog]); config problems
// are *[FieldError] values ([ErrInvalidConfig]) naming
// connections.<name>.props.<key>.
//
// # Network
//
// A Config from [Policy.Resolve] calls out under the policy's egress rules
// (package internal/egress): REST catalogs under the catalog and OAuth
// rules, every AWS call under the AWS rules, each dial checked on the
// addresses the name resolved to; [Policy.Check] refuses URL props whose
// host is a refused address literal. A REST connection's credentials go
// only to the hosts its props name (or the catalog rules list), whatever
// the catalog's config answer says; no redirect to another origin is
// followed; a peer that cannot be reached gives [ErrUnreachable] with the
// same text whatever the cause.
//
// # Credentials
//
// A credential written in props (a key, token or password by name, an
// authorization header, a password inside a URL or connection string) is
// refused by [Config.Validate] naming the secrets key it belongs under;
// [Config.MoveCredentials] moves it there for records stored before that
// rule. [Config.ValidateWrite] also refuses secrets shorter than
// [MinSecretLen].
//
// Secrets never appear in errors, logs, [Config.String], [Config.LogValue]
// or the JSON of a Config. Errors can still repeat what a peer answered;
// floe scrubs every known secret value from them at its boundary
// (internal/redact).
package catalog
