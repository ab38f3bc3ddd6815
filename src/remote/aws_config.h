/* aws_config.h - the AWS settings of s3:// names, read as botocore (the
 * SDK of the AWS CLI and boto3) reads them, for s3.c. Internal to remote/.
 *
 * The profile: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else "default". Its
 * sections: [default] or [profile NAME] of the config file ($AWS_CONFIG_FILE,
 * else ~/.aws/config; the last section naming it wins) and [NAME] of the
 * credentials file ($AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials),
 * whose keys win over the config file's. A profile named in the environment
 * that neither file has is an error, as in botocore ("the config profile
 * (NAME) could not be found"); a missing file is no error.
 *
 * Credentials, in botocore's order: $AWS_ACCESS_KEY_ID and
 * $AWS_SECRET_ACCESS_KEY (with $AWS_SECURITY_TOKEN or $AWS_SESSION_TOKEN);
 * then the profile. What botocore would use there and gguffs does not do
 * (assuming a role: role_arn; a web identity token; IAM Identity Center:
 * sso_account_id, sso_role_name; a console login: login_session; a program:
 * credential_process) is an error naming it, never a silent fallback to
 * another source; else the key pair of the credentials file, then of the
 * config file; half a pair is an error. None: requests go unsigned (a public
 * bucket). */
#ifndef GGUFFS_REMOTE_AWS_CONFIG_H
#define GGUFFS_REMOTE_AWS_CONFIG_H

typedef struct gg_aws {
    char *region;                  /* the profile's region, or NULL */
    char *key_id, *secret, *token; /* the credentials (token may be NULL), or all NULL: none */
    char *bad;                     /* why the settings cannot be used, or NULL */
    char *source;                  /* where the key pair came from, or where none was found */
} gg_aws;

/* 0, or -1 (out of memory). */
int gg_aws_load(gg_aws *a);
/* A variable of the environment, NULL if unset or empty (as the SDKs take it). */
const char *gg_aws_env(const char *name);
/* (the secret and the token are wiped) */
void gg_aws_free(gg_aws *a);

#endif
