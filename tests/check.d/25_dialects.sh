#!/bin/bash
# One id, several meanings: automatic resolution by size and hints, forcing
# with -o types=, ambiguity left unknown, types.tsv.
. "$(dirname "$0")/../lib.sh"
M=$TMP/m
F=$DATA/forks

$PY - "$TMP" <<'PY'
import sys, struct
sys.path.insert(0, "tests")
import gguf_tool as g
tmp = sys.argv[1]
blk = bytes(range(42)) + bytes(214)  # only sizes matter here
# id 42 with 256 elements: Q2_0 needs 72 bytes, STQ1_0 42; alignment 256
# makes both exact fits, so only a hint can tell them apart.
kv = [("general.alignment", g.U32, 256)]
g.write(tmp + "/amb.gguf", kvs=kv, alignment=256, tensors=[("t", [256], 42, blk[:72])])
g.write(tmp + "/amb-hint.gguf", kvs=kv + [("general.finetune", g.STR, "2bit-stride16")], alignment=256,
        tensors=[("t", [256], 42, blk[:72])])
# Q8_K as ik_llama.cpp stores it: 296-byte blocks. With 8 blocks the
# sizes differ by more than the alignment padding; with 2 they do not, and
# only another ik-only type in the file tells.
g.write(tmp + "/q8k-ik.gguf", tensors=[("q", [256, 8], 15, bytes(8 * 296))])
g.write(tmp + "/q8k-ik-2.gguf", tensors=[("q", [256, 2], 15, bytes(2 * 296))])
g.write(tmp + "/q8k-ik-hint.gguf", tensors=[("q", [256, 2], 15, bytes(2 * 296)), ("k", [256], 139, bytes(144))])
PY

mount_model "$M" "$F/stq1_0-id42.gguf"
check "id 42 read as STQ1_0 by size" grep -q "^STQ1_0	42	stq1_0	2	" "$M/types.tsv"
check "id 42 STQ1_0 decodes right" cmp -s "$M/tensors/STQ1_0.b/f32" "$F/f32/stq1_0-id42/STQ1_0.b.f32"
check "resolution explained" $PY -c "
import json; i = json.load(open('$M/tensors/STQ1_0.a/info.json'))
assert 'Q2_0 rejected' in i['resolution'] and i['type'] == 'STQ1_0', i"
unmount "$M"

mount_model "$M" "$DATA/mainline/mainline.gguf"
check "mainline id 42 is Q2_0" grep -q "^Q2_0	42	mainline	2	" "$M/types.tsv"
unmount "$M"

mount_model "$M" -o types=42:STQ1_0 "$DATA/mainline/mainline.gguf"
check "forced meaning used" $PY -c "
import json; i = json.load(open('$M/tensors/Q2_0/info.json'))
assert i['type'] == 'STQ1_0' and 'forced' in i['resolution'], i"
unmount "$M"

mount_model "$M" -o types=43:Q2_0 "$F/stq1_0-id43.gguf"
check "forced meaning that does not fit: unknown" $PY -c "
import json; i = json.load(open('$M/tensors/STQ1_0.a/info.json'))
assert i['type'] is None and 'Q2_0 rejected' in i['error'], i"
check "the F32 tensor still reads" cmp -s "$M/tensors/norm.weight/f32" "$F/f32/stq1_0-id43/norm.weight.f32"
unmount "$M"

mount_model "$M" "$TMP/amb.gguf"
check "ambiguous id left unknown with candidates" $PY -c "
import json; i = json.load(open('$M/tensors/t/info.json'))
assert i['type'] is None and 'ambiguous' in i['error'] and 'Q2_0' in i['error'] and 'STQ1_0' in i['error'], i"
check "ambiguous: f32 EIO" sh -c "! cat '$M/tensors/t/f32' >/dev/null 2>&1"
check "ambiguous: raw readable" [ "$(stat -c %s "$M/tensors/t/raw")" = 256 ]
unmount "$M"

mount_model "$M" "$TMP/amb-hint.gguf"
check "general.finetune stride16 breaks the tie" $PY -c "
import json; i = json.load(open('$M/tensors/t/info.json'))
assert i['type'] == 'STQ1_0' and 'evidence' in i['resolution'], i"
unmount "$M"

mount_model "$M" "$TMP/q8k-ik.gguf"
check "ik Q8_K (296-byte blocks) recognised, no decoder" $PY -c "
import json; i = json.load(open('$M/tensors/q/info.json'))
assert i['type'] == 'Q8_K_IK' and i['dialect'] == 'ik_llama.cpp' and 'no decoder' in i['error'] and i['bytes'] == 2368, i"
unmount "$M"
mount_model "$M" "$TMP/q8k-ik-2.gguf"
check "Q8_K 292 or 296: too close to tell, unknown" $PY -c "
import json; i = json.load(open('$M/tensors/q/info.json'))
assert i['type'] is None and 'ambiguous' in i['error'], i"
unmount "$M"
mount_model "$M" "$TMP/q8k-ik-hint.gguf"
check "an ik-only type elsewhere in the file decides" $PY -c "
import json; i = json.load(open('$M/tensors/q/info.json'))
assert i['type'] == 'Q8_K_IK' and 'evidence' in i['resolution'], i"
unmount "$M"

"$GGUFFS" -o types=42:NOPE "$F/stq1_0-id42.gguf" "$M" 2>/dev/null
check "unknown type name in -o types: usage error" [ $? = 2 ]
"$GGUFFS" -o stq1_0_order=sideways "$F/stq1_0-id42.gguf" "$M" 2>/dev/null
check "bad stq1_0_order: usage error" [ $? = 2 ]
finish 25_dialects
