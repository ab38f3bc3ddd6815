// hftok.mjs - token ids by Hugging Face's own JavaScript tokenizer (npm @huggingface/tokenizers
// 0.2.0): new Tokenizer(tokenizer.json, tokenizer_config.json).encode(text).ids
//
//   node hftok.mjs TEXTS.json FOLDER:OUT.json ...
//        for each FOLDER (holding tokenizer.json and tokenizer_config.json), the ids of
//        every text of TEXTS.json (a JSON list of strings) to OUT.json, a JSON object
//        {"plain": [ids without special tokens...], "special": [ids with them added]}
// Env: PEER_DIR=FOLDER where node_modules/@huggingface/tokenizers is (default: beside this file).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const tk = process.env.PEER_DIR
    ? await import(pathToFileURL(join(process.env.PEER_DIR, "node_modules/@huggingface/tokenizers/dist/tokenizers.mjs")).href)
    : await import("@huggingface/tokenizers");
const [textsFile, ...jobs] = process.argv.slice(2);
if (!textsFile || !jobs.length) {
    console.error("usage: node hftok.mjs TEXTS.json FOLDER:OUT.json ...");
    process.exit(2);
}
const texts = JSON.parse(readFileSync(textsFile, "utf8"));
for (const j of jobs) {
    const m = /^(.+):([^:]+)$/.exec(j);
    const dir = m[1];
    const tok = new tk.Tokenizer(JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")),
        JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8")));
    writeFileSync(m[2], JSON.stringify({
        plain: texts.map((t) => tok.encode(t, { add_special_tokens: false }).ids),
        special: texts.map((t) => tok.encode(t).ids),
    }) + "\n");
}
