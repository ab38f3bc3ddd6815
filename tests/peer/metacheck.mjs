// metacheck.mjs - what the real llama.cpp (npm node-llama-cpp 3.21.1, CPU, one thread)
// makes of a model's metadata, as JSON on stdout:
//
//   node metacheck.mjs MODEL.gguf TEXT [TOKEN]
//
//   name        general.name as node-llama-cpp reads the file (model.fileInfo)
//   template    tokenizer.chat_template, likewise (null if none)
//   chat        the prompt of [user "hi"] as the chat wrapper node-llama-cpp chose for
//               the model renders it (its Jinja template, when the model has one)
//   eos         llama.cpp's EOS token (llama_vocab_eos; node-llama-cpp gives control
//               tokens only, else null)
//   is_eog      whether llama.cpp ends a generation at TOKEN (llama_vocab_is_eog)
//   next        the token llama.cpp picks greedily after BOS + TEXT, or null when it
//               picked an end-of-generation token: it stopped there
//   probs       SHA-256 of its next-token probabilities after BOS + TEXT (float32, all
//               of the vocabulary): the weights it computed with
// METACHECK_WAIT=1: once the model is loaded (mapped), say "loaded" on stderr and wait
// for standard input to end before computing anything.
// A load failure exits 1 with the path and llama.cpp's messages on stderr.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const nlc = process.env.PEER_DIR
    ? await import(pathToFileURL(join(process.env.PEER_DIR, "node_modules/node-llama-cpp/dist/index.js")).href)
    : await import("node-llama-cpp");
const { getLlama, LlamaLogLevel, resolveChatWrapper } = nlc;

const [modelPath, text, token] = process.argv.slice(2);
if (!modelPath || text === undefined) {
    console.error("usage: node metacheck.mjs MODEL.gguf TEXT [TOKEN]");
    process.exit(2);
}
const logs = [];
const llama = await getLlama({ gpu: false, build: "never", usePrebuiltBinaries: true, progressLogs: false,
    logLevel: LlamaLogLevel.warn, logger: (level, message) => logs.push(`${level}: ${message}`) });
let model;
try {
    model = await llama.loadModel({ modelPath, gpuLayers: 0 });
} catch (e) {
    await new Promise((r) => setTimeout(r, 10));
    console.error(`${modelPath}: ${e.message}\n${logs.join("\n")}`);
    process.exit(1);
}
if (process.env.METACHECK_WAIT) {
    process.stderr.write("loaded\n");
    for await (const _ of process.stdin) { /* until it ends */ }
}
const meta = model.fileInfo.metadata;
const wrapper = resolveChatWrapper(model);
const chat = wrapper.generateContextState({
    chatHistory: [{ type: "user", text: "hi" }, { type: "model", response: [] }],
}).contextText.toString();
const eos = model.tokens.eos;
const ctx = await model.createContext({ threads: 1, contextSize: 128, batchSize: 128 });
const seq = ctx.getSequence();
const tokens = model.tokenize(text, false);
if (model.tokens.bos != null) tokens.unshift(model.tokens.bos);
let next = null;
for await (const r of seq.evaluate(tokens, { temperature: 0 })) {
    next = r;
    break;
}
await ctx.dispose();
// controlledEvaluate, not evaluateWithMetadata: the latter samples a token (temperature 1,
// a random seed) and yields nothing when it drew an end of generation, so the
// probabilities went missing now and then.
const ctx3 = await model.createContext({ threads: 1, contextSize: 128, batchSize: 128 });
const last = { generateNext: { probabilities: true, options: { temperature: 1, topK: 0, topP: 1, minP: 0, seed: 1 } } };
const res = await ctx3.getSequence().controlledEvaluate(tokens.map((t, i) => i === tokens.length - 1 ? [t, last] : t));
const probs = res[tokens.length - 1]?.next?.probabilities;
await ctx3.dispose();
if (!probs) {
    console.error(`${modelPath}: llama.cpp gave no next-token probabilities`);
    process.exit(1);
}
const pv = new Float32Array(probs.size);
for (const [tok, p] of probs) pv[tok] = p;
process.stdout.write(JSON.stringify({
    name: meta?.general?.name ?? null,
    template: meta?.tokenizer?.chat_template ?? null,
    wrapper: wrapper.wrapperName,
    chat,
    eos,
    is_eog: token === undefined ? null : model.isEogToken(Number(token)),
    next,
    probs: createHash("sha256").update(Buffer.from(pv.buffer)).digest("hex"),
}) + "\n");
await model.dispose();
await llama.dispose();
