"""Creates IAM users, roles and policies in a moto server for floe's
credential and permission tests, and prints their keys and ARNs as JSON.

Usage: moto_iam.py http://127.0.0.1:PORT

Users (static keys):
  reader       may read everything floe needs (Glue reads, S3 reads)
  no-gettable  may list Glue databases and tables but not glue:GetTable
  no-data      may do every Glue read but no S3 call
  assumer      may only call sts:AssumeRole
Roles:
  floe-service     may only call sts:AssumeRole (the first hop of a chain)
  customer-reader  may read everything floe needs
"""

import json
import sys

import boto3

READ_ALL = ["glue:Get*", "s3:GetObject", "s3:ListBucket"]
TRUST = {"Version": "2012-10-17",
         "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}


def policy(actions):
    return json.dumps({"Version": "2012-10-17",
                       "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]})


def main():
    iam = boto3.client("iam", endpoint_url=sys.argv[1], region_name="us-east-1",
                       aws_access_key_id="testing", aws_secret_access_key="testing")
    users = {
        "reader": policy(READ_ALL),
        "no-gettable": policy(["glue:GetDatabases", "glue:GetTables"]),
        "no-data": policy(["glue:Get*"]),
        "assumer": policy(["sts:AssumeRole"]),
    }
    out = {}
    for name, doc in users.items():
        iam.create_user(UserName=name)
        iam.put_user_policy(UserName=name, PolicyName="p", PolicyDocument=doc)
        key = iam.create_access_key(UserName=name)["AccessKey"]
        out[name] = {"id": key["AccessKeyId"], "secret": key["SecretAccessKey"]}
    roles = {"floe-service": policy(["sts:AssumeRole"]), "customer-reader": policy(READ_ALL)}
    for name, doc in roles.items():
        arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
        iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=doc)
        out["role:" + name] = {"arn": arn}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
