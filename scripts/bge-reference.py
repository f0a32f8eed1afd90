#!/usr/bin/env python3
"""bge-reference.py writes internal/embed/bge/testdata/reference.json: token
ids and CLS vectors of bge-small-zh-v1.5 (the int8 ONNX model fetched by
scripts/fetch-bge-zh.sh) for a few zh/en/mixed chat lines, with and without
BAAI's query prefix. The Go tokenizer and forward pass are tested against it.

It needs PyPI's onnxruntime, tokenizers and numpy, which are not recalld
dependencies; run it from a throwaway venv:

    python3 -m venv /tmp/bgevenv
    /tmp/bgevenv/bin/pip install onnxruntime tokenizers numpy
    /tmp/bgevenv/bin/python scripts/bge-reference.py [MODEL_DIR]

Each text is run alone (batch 1, no padding): the model quantizes its
activations per tensor, so padding a batch would change every vector.
Session options are onnxruntime's defaults (all graph optimizations), as
LangChain4j runs the model. The vector is last_hidden_state[0, 0]
(CLS pooling), L2-normalised.

The shipped tokenizer.json (Xenova's export) says "lowercase": false, but
the vocabulary has no upper-case entries and BAAI's own tokenizer lower-cases
(which, with strip_accents unset, also strips accents), so capitalised words
become [UNK]. Cases marked "lowercase": true are tokenized with that flag
turned on; they are written only where the ids differ.
"""
import hashlib
import json
import os
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

PREFIX = "为这个句子生成表示以用于检索相关文章："

TEXTS = [
    "我在学什么乐器",
    "最近每天练尤克里里",
    "我女儿下个月要去上海读大学了",
    "昨天晚上吃了火锅，太辣了！",
    "你还记得我上次说的那本书吗？",
    "周末想去爬山，天气预报说会下雨。",
    "我對咖啡過敏，只喝茶。",
    "What instrument am I learning?",
    "I've been practicing the ukulele every day.",
    "My daughter starts university in Shanghai next month",
    "Café crème, naïve résumé — ÀÉÎÕÜ",
    "我用iPhone 15拍了很多照片",
    "明天10点和Alice开会，记得带PPT",
    "GPT-4o和Claude哪个更好用？",
    "（全角括号）ＡＢＣ１２３，测试。",
    "emoji 😀🎉 和 颜文字 (^_^)",
    "  多个   空格\t制表符\n换行  ",
    "literal [SEP] and [CLS] in text",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "",
]


def case(sess, text, query, lowercase, ids):
    arr = np.array([ids], dtype=np.int64)
    out = sess.run(None, {
        "input_ids": arr,
        "attention_mask": np.ones_like(arr),
        "token_type_ids": np.zeros_like(arr),
    })[0]
    v = out[0, 0].astype(np.float64)
    v /= np.linalg.norm(v)
    return {
        "text": text,
        "query": query,
        "lowercase": lowercase,
        "ids": ids,
        "vector": [float("%.7g" % x) for x in v],
    }


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    model_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "models", "bge-small-zh")
    onnx_path = os.path.join(model_dir, "bge-small-zh-v1.5-q.onnx")
    tok_path = os.path.join(model_dir, "bge-small-zh-v1.5-q-tokenizer.json")
    tok = Tokenizer.from_file(tok_path)
    with open(tok_path, encoding="utf-8") as f:
        spec = json.load(f)
    spec["normalizer"]["lowercase"] = True
    tok_lower = Tokenizer.from_str(json.dumps(spec))
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    cases = []
    for text in TEXTS:
        for query in (False, True):
            if query and text == "":
                continue
            full = PREFIX + text if query else text
            ids = tok.encode(full).ids
            cases.append(case(sess, full, query, False, ids))
            lower = tok_lower.encode(full).ids
            if lower != ids:
                cases.append(case(sess, full, query, True, lower))
    with open(onnx_path, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    doc = {
        "model_sha256": sha,
        "onnxruntime": ort.__version__,
        "query_prefix": PREFIX,
        "cases": cases,
    }
    dest = os.path.join(root, "internal", "embed", "bge", "testdata", "reference.json")
    with open(dest, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), dest))


if __name__ == "__main__":
    main()
