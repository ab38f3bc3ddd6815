/* s3.h - s3:// names of objects in an S3 store (AWS S3, MinIO, R2, GCS's S3
 * API): the store's row of the resolver table (scheme.h). Internal to
 * remote/.
 *
 *   s3://BUCKET/KEY.gguf   one object (a shard of a split set: the set)
 *   s3://BUCKET[/PREFIX]   every .gguf object under PREFIX/ (a '/' is put
 *                          after PREFIX if it has none), a split set once,
 *                          each named by its key below the prefix, listed
 *                          with ListObjectsV2 page after page
 *                          (continuation tokens): any number of keys
 *
 * Where: -o s3_endpoint=, else $AWS_ENDPOINT_URL_S3, else $AWS_ENDPOINT_URL
 * (path-style: ENDPOINT/BUCKET/KEY; http only on loopback), else AWS
 * (https://BUCKET.s3.REGION.amazonaws.com/KEY; path-style for a bucket
 * with a '.'). The region: -o s3_region=, else $AWS_REGION, else
 * $AWS_DEFAULT_REGION, else the profile's, else us-east-1. The profile and
 * the credentials as botocore reads them (aws_config.h): a profile named
 * and not found, a credential source gguffs does not support, half a key
 * pair: said when an s3:// name is used (exit 2); none: requests go
 * unsigned (a public bucket). Read once per net.
 *
 * The store's policy (net.h) reads the URLs at its endpoint (those of its
 * names, and https URLs given as such), except a presigned URL (a query
 * with X-Amz-Signature), which is never signed again: each hop to the
 * store is signed by libcurl (CURLOPT_AWS_SIGV4 "aws:amz:REGION:s3", the
 * key pair as CURLOPT_USERPWD) with what libcurl 7.88 does not do itself:
 * x-amz-content-sha256: UNSIGNED-PAYLOAD (it signs that header's value as
 * the payload's hash), the session token as x-amz-security-token, and
 * URLs whose path is encoded and query sorted and encoded as SigV4 wants
 * them (libcurl 7.88 signs both as they are). The range goes as
 * CURLOPT_RANGE, not as a header (every custom header is signed). A
 * refusal names S3's error code and message (only those: an error body
 * may echo what was signed, the session token too), and a bucket's region
 * that is not ours (x-amz-bucket-region, with 301 PermanentRedirect and no
 * Location) with the option to give it. A listing is made to end
 * (scheme.h's gg_listing). */
#ifndef GGUFFS_REMOTE_S3_H
#define GGUFFS_REMOTE_S3_H

#include "scheme.h"

extern const gg_resolver gg_s3_resolver;

#endif
