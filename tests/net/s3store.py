#!/usr/bin/env python3
"""s3store: set up and change the S3 store of tests/check.d/75_remote_s3.sh
(moto_server at ENDPOINT: one with no checks of its own behind
tests/net/s3gate.py, and one that checks signatures itself: "checked").
Runs with a Python that has boto3 and moto (the machine image's).

    s3store.py keys ENDPOINT CREDS     an IAM user and its access key, and a
                                       role's session credentials (AssumeRole),
                                       made by moto; written to CREDS for the
                                       gate; prints "KEY SECRET SKEY SSECRET STOKEN"
    s3store.py bucket ENDPOINT BUCKET
    s3store.py put ENDPOINT BUCKET KEY FILE   (a new object, or a new version of it)
    s3store.py fill ENDPOINT BUCKET PREFIX N  N small objects PREFIX00000.txt ...
    s3store.py presign GATE CREDS BUCKET KEY  a presigned GET URL (SigV4, 1 h), by the IAM key
    s3store.py checked ENDPOINT BUCKET KEY=FILE...
        for a moto_server started with INITIAL_NO_AUTH_ACTION_COUNT=3, which
        checks signatures and policies from its fourth action on (moto counts
        each action it serves while the count is below that number, and
        checks every later one): the three free actions make a set-up user
        with every right and its key, and everything after is signed by that
        key and checked by moto: a fourth call without it is refused (else
        moto is not checking, and this exits 1), a reader (an IAM user whose
        policy allows s3:GetObject and s3:ListBucket only) and its key, a role
        with that policy and a session of it (AssumeRole), the bucket, the
        objects. Prints "KEY SECRET SKEY SSECRET STOKEN" (the reader's and
        the session's)
"""
import json
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def client(service, endpoint, key="test", secret="test", token=None, **kw):
    return boto3.client(service, endpoint_url=endpoint, aws_access_key_id=key, aws_secret_access_key=secret,
                        aws_session_token=token, region_name="us-east-1", **kw)


def allowed_all(iam, user):
    """A new user allowed every action: its access key."""
    iam.create_user(UserName=user)
    allow = json.dumps({"Version": "2012-10-17",
                        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
    iam.put_user_policy(UserName=user, PolicyName="all", PolicyDocument=allow)
    return iam.create_access_key(UserName=user)["AccessKey"]


def keys(endpoint, path):
    iam = client("iam", endpoint)
    k = allowed_all(iam, "gguffs")
    trust = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]})
    role = iam.create_role(RoleName="reader", AssumeRolePolicyDocument=trust)["Role"]
    sts = client("sts", endpoint, k["AccessKeyId"], k["SecretAccessKey"])
    t = sts.assume_role(RoleArn=role["Arn"], RoleSessionName="gguffs-test")["Credentials"]
    with open(path, "w") as f:
        json.dump({k["AccessKeyId"]: {"secret": k["SecretAccessKey"], "token": None},
                   t["AccessKeyId"]: {"secret": t["SecretAccessKey"], "token": t["SessionToken"]}}, f)
    print(k["AccessKeyId"], k["SecretAccessKey"], t["AccessKeyId"], t["SecretAccessKey"], t["SessionToken"])


# AWS checks a listing as s3:ListBucket; moto 5.2.6 checks it under the
# operation's name, s3:ListObjectsV2 (no such IAM action exists on AWS).
READ_ONLY = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket", "s3:ListObjectsV2"], "Resource": "*"}]})


def checked(endpoint, bucket, objects):
    iam = client("iam", endpoint)
    a = allowed_all(iam, "setup")
    try:
        iam.list_users()
        sys.exit("s3store.py: moto let a fourth action by no key through: it is not checking signatures")
    except ClientError as e:
        if e.response["ResponseMetadata"]["HTTPStatusCode"] != 403:
            raise
    iam = client("iam", endpoint, a["AccessKeyId"], a["SecretAccessKey"])
    iam.create_user(UserName="reader")
    iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=READ_ONLY)
    r = iam.create_access_key(UserName="reader")["AccessKey"]
    trust = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]})
    role = iam.create_role(RoleName="reader", AssumeRolePolicyDocument=trust)["Role"]
    iam.put_role_policy(RoleName="reader", PolicyName="read", PolicyDocument=READ_ONLY)
    sts = client("sts", endpoint, a["AccessKeyId"], a["SecretAccessKey"])
    t = sts.assume_role(RoleArn=role["Arn"], RoleSessionName="gguffs-test")["Credentials"]
    s3 = client("s3", endpoint, a["AccessKeyId"], a["SecretAccessKey"])
    s3.create_bucket(Bucket=bucket)
    for o in objects:
        key, _, path = o.partition("=")
        s3.upload_file(path, bucket, key)
    print(r["AccessKeyId"], r["SecretAccessKey"], t["AccessKeyId"], t["SecretAccessKey"], t["SessionToken"])


def main(a):
    if a[0] == "keys":
        keys(a[1], a[2])
    elif a[0] == "bucket":
        client("s3", a[1]).create_bucket(Bucket=a[2])
    elif a[0] == "put":
        client("s3", a[1]).upload_file(a[4], a[2], a[3])
    elif a[0] == "fill":
        s3 = client("s3", a[1])
        for i in range(int(a[4])):
            s3.put_object(Bucket=a[2], Key="%s%05d.txt" % (a[3], i), Body=b"x")
    elif a[0] == "presign":
        creds = json.load(open(a[2]))
        key = next(k for k, v in creds.items() if not v["token"])
        s3 = client("s3", a[1], key, creds[key]["secret"], config=Config(signature_version="s3v4"))
        print(s3.generate_presigned_url("get_object", Params={"Bucket": a[3], "Key": a[4]}, ExpiresIn=3600))
    elif a[0] == "checked":
        checked(a[1], a[2], a[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
