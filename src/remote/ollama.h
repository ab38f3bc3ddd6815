/* ollama.h - ollama:// names of models in an Ollama registry, mounted
 * without pulling them: the registry's row of the resolver table
 * (scheme.h). Internal to remote/.
 *
 *   ollama://[HOST/][NS/]MODEL[:TAG]   NS library, TAG latest; the registry
 *                                      -o ollama_registry= (default
 *                                      https://registry.ollama.ai; http on
 *                                      loopback only), or https://HOST
 *
 * The manifest (GET /v2/NS/MODEL/manifests/TAG, Accept: the Docker
 * manifest v2 type) names the layers by digest: the
 * application/vnd.ollama.image.model layer is the GGUF, read by ranges
 * from its blob (GET /v2/NS/MODEL/blobs/sha256:HEX, which redirects to a
 * CDN); a projector layer is a second model beside it (MODEL:TAG.projector);
 * the template, system, params and license layers are side files of the
 * model (model.h), read whole and checked against their digests when it
 * opens. A tag without a model layer (Ollama's safetensors-layer models)
 * is refused, saying so. The models are named as the local store names
 * them: MODEL:TAG, NS/MODEL:TAG, HOST/NS/MODEL:TAG.
 *
 * The registry's policy (net.h) reads its URLs with a user agent that
 * begins "ollama/" (the registry answers 412 to others) and the manifest's
 * Accept header; blobs are content-addressed: no If-Match, no ETag
 * compared (fetch.h), and the model's and projector's blobs are what their
 * layers say, their size and digest (the policy's identity: fetch.h's
 * want_size and want_sha256); the registry's JSON errors are named. */
#ifndef GGUFFS_REMOTE_OLLAMA_H
#define GGUFFS_REMOTE_OLLAMA_H

#include "scheme.h"

extern const gg_resolver gg_ollama_resolver;

#endif
