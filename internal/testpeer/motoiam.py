"""IAM and CloudFormation chores for floe's tests against a moto server.

Usage: motoiam.py ENDPOINT COMMAND ARGS...
  deploy STACK TEMPLATE_FILE [KEY=VALUE ...]  create a stack, print its status and outputs
  user NAME                                   create a user that may call sts:AssumeRole, print arn, id, secret
  put-role-policy ROLE POLICY_FILE            replace the role's inline policy floe-access
  role-policy ROLE                            print the role's inline policy floe-access

moto 5.2.5 stores an inline policy created by CloudFormation as a parsed
document, which its IAM enforcement cannot read (KeyError
'policy_document', HTTP 500 on every call with the role) and GetRolePolicy
returns as a Python repr. deploy therefore puts each inline policy of the
stack's roles again, unchanged, as JSON.
"""

import ast
import json
import sys

import boto3


def client(endpoint, service):
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def document(doc):
    """A policy document as moto returns it: parsed JSON, JSON text or a repr."""
    if isinstance(doc, dict):
        return doc
    try:
        return json.loads(doc)
    except ValueError:
        return ast.literal_eval(doc)


def deploy(endpoint, stack, path, *params):
    cfn, iam = client(endpoint, "cloudformation"), client(endpoint, "iam")
    with open(path) as f:
        body = f.read()
    parameters = [{"ParameterKey": k, "ParameterValue": v} for k, v in (p.split("=", 1) for p in params)]
    cfn.create_stack(StackName=stack, TemplateBody=body, Parameters=parameters, Capabilities=["CAPABILITY_NAMED_IAM"])
    st = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    for res in cfn.list_stack_resources(StackName=stack)["StackResourceSummaries"]:
        if res["ResourceType"] != "AWS::IAM::Role":
            continue
        role = res["PhysicalResourceId"]
        for name in iam.list_role_policies(RoleName=role)["PolicyNames"]:
            doc = document(iam.get_role_policy(RoleName=role, PolicyName=name)["PolicyDocument"])
            iam.put_role_policy(RoleName=role, PolicyName=name, PolicyDocument=json.dumps(doc))
    outputs = {o["OutputKey"]: o["OutputValue"] for o in st.get("Outputs", [])}
    print(json.dumps({"status": st["StackStatus"], "outputs": outputs}))


def user(endpoint, name):
    iam = client(endpoint, "iam")
    arn = iam.create_user(UserName=name)["User"]["Arn"]
    iam.put_user_policy(UserName=name, PolicyName="assume", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]}))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    print(json.dumps({"arn": arn, "id": key["AccessKeyId"], "secret": key["SecretAccessKey"]}))


def put_role_policy(endpoint, role, path):
    with open(path) as f:
        doc = f.read()
    client(endpoint, "iam").put_role_policy(RoleName=role, PolicyName="floe-access", PolicyDocument=doc)
    print("{}")


def role_policy(endpoint, role):
    doc = client(endpoint, "iam").get_role_policy(RoleName=role, PolicyName="floe-access")["PolicyDocument"]
    print(json.dumps(document(doc)))


def main():
    endpoint, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    commands = {"deploy": deploy, "user": user, "put-role-policy": put_role_policy, "role-policy": role_policy}
    commands[command](endpoint, *args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
