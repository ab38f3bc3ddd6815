/* tools.h - commands that work without FUSE (containers often have none). */
#ifndef GGUFFS_TOOLS_H
#define GGUFFS_TOOLS_H

/* gguffs --dump [--json] [--full] MODEL.gguf: header, key/values (long
 * arrays shortened unless --full) and the tensor table. */
int gg_tool_dump(int argc, char **argv);

/* gguffs --verify MODEL.gguf: decode every tensor once and report NaN/Inf
 * counts and decode errors; exit status 9 if any. */
int gg_tool_verify(int argc, char **argv);

#endif
