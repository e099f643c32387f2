// Package awsaccess is floe's AWS access made for the user: the IAM
// permissions floe needs per catalog connection, as one table, and the
// documents generated from it (a least-privilege policy, the trust policy
// of the role floe assumes with an external id, the middle role of a
// two-hop chain, and a CloudFormation template holding them).
//
// # One table, two uses
//
// [Table] lists, per [Access] kind (S3 Tables native and REST, Glue native
// and REST, an Iceberg REST catalog behind API Gateway, a Hadoop warehouse
// on S3, S3 data under a non-AWS catalog) and [Op] (connect, list
// namespaces, list tables, load table, read data, write the deep store),
// the IAM actions, the resources they apply to and the AWS API calls that
// need them. [Generate] emits exactly those actions for a connection;
// package catalog names a missing permission in its errors and validation
// steps with [Missing] from the same rows.
//
// # Invariants (tests cite them)
//
//   - A1 The reader policy allows exactly the table's actions for the
//     connection's access kind (plus kms:Decrypt/GenerateDataKey with a
//     kms:ViaService condition when keys are named, and
//     lakeformation:GetDataAccess when Lake Formation governs Glue, and
//     the four SQS actions a notification consumer calls on its queue, and
//     only on it, when notifications are asked for).
//   - A2 No action holds a wildcard. A "*" resource appears only where AWS
//     allows nothing narrower (lakeformation:GetDataAccess), and the
//     statement's Sid says so. s3:ListBucket carries an s3:prefix condition
//     whenever a location names a prefix.
//   - A3 The template's inline policy is the JSON policy, document for
//     document; the template's trust requires the external id.
//   - A4 The reader role is trusted only with the connection's external id;
//     the middle role of a chain may only assume the reader role.
//   - A5 Every generated template passes cfn-lint and every generated
//     policy passes parliament with no finding.
//
// # What AWS emulators enforce
//
// The integration tests deploy the templates into moto (server mode). moto
// 5.2.5 checks S3 object and bucket ARNs, sts:AssumeRole against the trust
// policy's principal (exact user ARN only) and a wrong sts:ExternalId; it
// authorizes Glue calls against resource "*" only, accepts an AssumeRole
// without any external id, and rejects S3 Tables signatures once IAM is
// enforced. The tests say where they work around each.
package awsaccess
