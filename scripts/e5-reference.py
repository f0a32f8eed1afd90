#!/usr/bin/env python3
"""e5-reference.py writes internal/embed/bge/testdata/e5/reference.json:
token ids and mean-pooled vectors of e5-small-v2 (the int8 ONNX model
fetched by scripts/fetch-e5.sh) for a few en/zh/mixed chat lines and one
text longer than the model's 512 tokens, each with intfloat's "query: " and
"passage: " prefixes. The Go tokenizer and forward pass are tested against
it, as against scripts/bge-reference.py's vectors of bge-small-zh-v1.5.

It needs PyPI's onnxruntime, tokenizers and numpy, which are not recalld
dependencies; run it from a throwaway venv:

    python3 -m venv /tmp/bgevenv
    /tmp/bgevenv/bin/pip install onnxruntime tokenizers numpy
    /tmp/bgevenv/bin/python scripts/e5-reference.py [MODEL_DIR]

Each text is run alone (batch 1, no padding): the model quantizes its
activations per tensor, so padding a batch would change every vector.
Session options are onnxruntime's defaults (all graph optimizations), as
LangChain4j runs the model. The shipped tokenizer.json lower-cases and sets
no truncation; texts are cut to 512 ids ([CLS] and [SEP] included), as the
Go tokenizer does. The vector is the mean of last_hidden_state[0] over all
tokens (mean pooling; the attention mask is all ones), L2-normalised.
"""
import hashlib
import json
import os
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
MAX_TOKENS = 512

LONG = (
    "We spent the whole of last summer driving along the coast, stopping in "
    "small fishing towns whenever the weather turned, and every evening my "
    "sister wrote down what we had eaten, who we had met and how much petrol "
    "cost, because she wanted to turn the trip into a little book for our "
    "parents' anniversary. "
) * 10

TEXTS = [
    "What instrument am I learning?",
    "I've been practicing the ukulele every day.",
    "My daughter starts university in Shanghai next month",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "When did Melanie paint a sunrise?",
    "Café crème, naïve résumé — ÀÉÎÕÜ",
    "I can't handle hot, fiery dishes; the quarterly report is due next week!",
    "Meeting at 10:30 with Alice, bring the Q3 slides (v2.1) & the budget.",
    "emoji 😀🎉 and kaomoji (^_^)",
    "  several   spaces\ttab\nnewline  ",
    "literal [SEP] and [CLS] in text",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "我在学什么乐器",
    "昨天晚上吃了火锅，太辣了！",
    "我用iPhone 15拍了很多照片",
    "明天10点和Alice开会，记得带PPT",
    "GPT-4o和Claude哪个更好用？",
    "ok",
    LONG,
]


def case(sess, text, query, ids):
    arr = np.array([ids], dtype=np.int64)
    out = sess.run(None, {
        "input_ids": arr,
        "attention_mask": np.ones_like(arr),
        "token_type_ids": np.zeros_like(arr),
    })[0]
    v = out[0].astype(np.float64).mean(axis=0)
    v /= np.linalg.norm(v)
    return {
        "text": text,
        "query": query,
        "ids": ids,
        "vector": [float("%.7g" % x) for x in v],
    }


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    model_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "models", "e5-small-v2")
    onnx_path = os.path.join(model_dir, "e5-small-v2-q.onnx")
    tok_path = os.path.join(model_dir, "e5-small-v2-q-tokenizer.json")
    tok = Tokenizer.from_file(tok_path)
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    cases = []
    for text in TEXTS:
        for query in (True, False):
            full = (QUERY_PREFIX if query else PASSAGE_PREFIX) + text
            cases.append(case(sess, full, query, tok.encode(full).ids))
    with open(onnx_path, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    doc = {
        "model_sha256": sha,
        "onnxruntime": ort.__version__,
        "query_prefix": QUERY_PREFIX,
        "passage_prefix": PASSAGE_PREFIX,
        "cases": cases,
    }
    dest = os.path.join(root, "internal", "embed", "bge", "testdata", "e5", "reference.json")
    with open(dest, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), dest))


if __name__ == "__main__":
    main()
