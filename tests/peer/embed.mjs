// embed.mjs - run GGUF models through the real llama.cpp (npm node-llama-cpp 3.21.1), CPU, one thread.
//
//   node embed.mjs embed MODEL.gguf TEXT [OUT.f32]   last-token embedding (llama.cpp's
//        llama_get_embeddings_ith(-1), raw, not normalized): JSON array on stdout, or
//        little-endian float32 bytes to OUT.f32
//   node embed.mjs probs MODEL.gguf TEXT [OUT.f32]   next-token probabilities over the whole
//        vocabulary after BOS+TEXT (softmax of the logits at temperature 1, topK 0 = all;
//        goes through output.weight, which the embedding does not)
//   node embed.mjs tokenize MODEL.gguf TEXT          token ids as JSON (vocabOnly load: a
//        vocabulary-only GGUF is enough)
//   node embed.mjs steps MODEL.gguf ids:1,2,3 OUT   every position of the ids: OUT.emb.f32
//        the embedding of each prefix (position i's last hidden state, T x n_embd), and
//        OUT.top.json the 8 likeliest next tokens at each position, [[id, probability], ...]
//        best first (one evaluation of the whole text; softmax over those 8, so that two
//        probabilities' ratio is exp of their logits' difference)
//   node embed.mjs batch TEXT MODE:MODEL.gguf:OUT.f32 ...   several runs in one process
//        (MODE embed, probs or steps); saves node start-up and getLlama (~0.5 s) per model
//   node embed.mjs tokenize-all TEXTS.json MODEL.gguf:OUT.json ...   the token ids of every
//        text of TEXTS.json (a JSON list of strings) by each vocabulary, as tokenize does:
//        a JSON list of lists to each OUT.json
//
// Env: PEER_DIR=FOLDER where node_modules/node-llama-cpp is (default: resolved from here);
// EMBED_TIMING=1 prints on stderr load/context/eval milliseconds, the libggml-cpu-*.so
// variant loaded (from /proc/self/maps) and the context's thread count;
// EMBED_THREADS=N overrides the one thread; EMBED_MMAP=0 loads without mmap;
// EMBED_KV=F32 keeps the KV cache in that type (default F16); EMBED_FA=0 turns flash
// attention off; a TEXT "ids:1,2,3" evaluates those token ids (embed mode) instead of
// tokenizing a text;
// EMBED_LOG=1 prints llama.cpp's log (info level) on stderr.
// A load failure exits 1 with the path and llama.cpp's messages on stderr.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// ESM ignores NODE_PATH: a bare import only finds node_modules beside or above this file.
const nlc = process.env.PEER_DIR
    ? await import(pathToFileURL(join(process.env.PEER_DIR, "node_modules/node-llama-cpp/dist/index.js")).href)
    : await import("node-llama-cpp");
const { getLlama, LlamaLogLevel } = nlc;

const USAGE = "usage: node embed.mjs embed|probs|steps|tokenize MODEL.gguf TEXT [OUT.f32]\n" +
    "       node embed.mjs batch TEXT MODE:MODEL.gguf:OUT.f32 ...\n" +
    "       node embed.mjs tokenize-all TEXTS.json MODEL.gguf:OUT.json ...";
const argv = process.argv.slice(2);
let text, jobs;
if (argv[0] === "batch" && argv.length >= 3) {
    text = argv[1];
    jobs = argv.slice(2).map((j) => {
        const m = /^(embed|probs|steps):(.+):([^:]+)$/.exec(j);
        if (!m) { console.error(`bad job ${j}\n${USAGE}`); process.exit(2); }
        return { mode: m[1], model: m[2], out: m[3] };
    });
} else if (argv[0] === "tokenize-all" && argv.length >= 3) {
    text = JSON.parse(readFileSync(argv[1], "utf8"));
    jobs = argv.slice(2).map((j) => {
        const m = /^(.+):([^:]+)$/.exec(j);
        if (!m) { console.error(`bad job ${j}\n${USAGE}`); process.exit(2); }
        return { mode: "tokenize-all", model: m[1], out: m[2] };
    });
} else if (["embed", "probs", "steps", "tokenize"].includes(argv[0]) && argv.length >= 3) {
    text = argv[2];
    jobs = [{ mode: argv[0], model: argv[1], out: argv[3] }];
} else {
    console.error(USAGE);
    process.exit(2);
}

const threads = Number(process.env.EMBED_THREADS ?? 1);
const timing = (s) => { if (process.env.EMBED_TIMING) console.error(s); };
const logs = [];
let t = performance.now();
const llama = await getLlama({
    gpu: false,
    build: "never",
    usePrebuiltBinaries: true,
    progressLogs: false,
    logLevel: process.env.EMBED_LOG ? LlamaLogLevel.info : LlamaLogLevel.warn,
    logger: (level, message) => {
        logs.push(`${level}: ${message}`.trimEnd() + "\n");
        if (process.env.EMBED_LOG) process.stderr.write(logs.at(-1));
    },
});
// which CPU variant ggml_backend_load_best picked (it logs nothing in release builds)
const variant = [...new Set(readFileSync("/proc/self/maps", "utf8").match(/libggml-cpu-[\w-]+\.so/g) ?? [])];
timing(`timing_ms getLlama ${(performance.now() - t).toFixed(1)} cpu ${variant.join(",")}`);

function emit(vec, out) {
    const f = Float32Array.from(vec); // llama.cpp's floats, exactly (they came as doubles)
    if (out) writeFileSync(out, Buffer.from(f.buffer));
    else process.stdout.write(JSON.stringify(Array.from(f)) + "\n");
}

async function run({ mode, model: modelPath, out }) {
    const t0 = performance.now();
    let model;
    try {
        model = await llama.loadModel({ modelPath, gpuLayers: 0, vocabOnly: mode.startsWith("tokenize"),
            useMmap: process.env.EMBED_MMAP !== "0",
            ...(process.env.EMBED_KV ? { experimentalDefaultContextKvCacheKeyType: process.env.EMBED_KV,
                experimentalDefaultContextKvCacheValueType: process.env.EMBED_KV } : {}),
            ...(process.env.EMBED_FA === "0" ? { defaultContextFlashAttention: false } : {}) });
    } catch (e) {
        await new Promise((r) => setTimeout(r, 10)); // let pending llama.cpp log lines arrive
        console.error(`${modelPath}: ${e.message}\n${logs.join("")}`);
        process.exit(1);
    }
    const t1 = performance.now();
    let t2 = t1, nThreads = "-";
    if (mode === "tokenize") {
        process.stdout.write(JSON.stringify(Array.from(model.tokenize(text, true))) + "\n");
    } else if (mode === "tokenize-all") {
        writeFileSync(out, JSON.stringify(text.map((t) => Array.from(model.tokenize(t, true)))) + "\n");
    } else if (mode === "embed") {
        const ctx = await model.createEmbeddingContext({ threads, contextSize: 128, batchSize: 128 });
        t2 = performance.now();
        nThreads = ctx._llamaContext._ctx.getThreads();
        const input = text.startsWith("ids:") ? text.slice(4).split(",").map(Number) : text;
        emit((await ctx.getEmbeddingFor(input)).vector, out);
        await ctx.dispose();
    } else if (mode === "steps") {
        const ids = text.slice(4).split(",").map(Number);
        const ectx = await model.createEmbeddingContext({ threads, contextSize: 128, batchSize: 128 });
        const emb = [];
        for (let i = 1; i <= ids.length; i++) emb.push(...(await ectx.getEmbeddingFor(ids.slice(0, i))).vector);
        await ectx.dispose();
        const ctx = await model.createContext({ threads, contextSize: 128, batchSize: 128 });
        t2 = performance.now();
        nThreads = ctx._ctx.getThreads();
        const next = { probabilities: true, options: { temperature: 1, topK: 8, topP: 1, minP: 0, seed: 1 } };
        const res = await ctx.getSequence().controlledEvaluate(ids.map((t) => [t, { generateNext: next }]));
        emit(emb, `${out}.emb.f32`);
        writeFileSync(`${out}.top.json`, JSON.stringify(res.map((r) => [...r.next.probabilities])) + "\n");
        await ctx.dispose();
    } else {
        const ctx = await model.createContext({ threads, contextSize: 128, batchSize: 128 });
        const seq = ctx.getSequence();
        t2 = performance.now();
        nThreads = ctx._ctx.getThreads();
        const tokens = model.tokenize(text, false);
        if (model.tokens.bos != null) tokens.unshift(model.tokens.bos);
        // controlledEvaluate: evaluateWithMetadata draws a token and yields nothing when
        // it drew an end of generation
        const last = { generateNext: { probabilities: true,
            options: { temperature: 1, topK: 0, topP: 1, minP: 0, seed: 1 } } };
        const res = await seq.controlledEvaluate(tokens.map((t, i) => i === tokens.length - 1 ? [t, last] : t));
        const probs = res[tokens.length - 1]?.next?.probabilities;
        if (!probs) throw new Error(`${modelPath}: llama.cpp gave no next-token probabilities`);
        const v = new Float32Array(probs.size); // topK 0: one entry per vocabulary token
        for (const [tok, p] of probs) v[tok] = p;
        emit(v, out);
        await ctx.dispose();
    }
    const t3 = performance.now();
    await model.dispose();
    timing(`timing_ms ${mode} ${modelPath} load ${(t1 - t0).toFixed(1)} context ${(t2 - t1).toFixed(1)} ` +
        `eval ${(t3 - t2).toFixed(1)} threads ${nThreads}`);
}

for (const j of jobs) await run(j);
await llama.dispose();
