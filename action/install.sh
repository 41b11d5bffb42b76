#!/usr/bin/env bash
# How action.yml gets its agent-hooks binary: the release matching the action's ref, downloaded
# and verified, else a build from the action's own source. One subcommand per step of action.yml:
#
#   resolve   which release matches the ref the action was used at; outputs tag, version, dir
#   download  fetch that release's checksums file, take its archive for this runner from the tool
#             cache (dir) or the release, check its SHA-256, unpack agent-hooks, agent-hooks-full
#             and agent-hooks-otel into a folder of this run's own; outputs path ("" when the
#             release has no checksums file: not published, so build from source)
#   gocache   the Go build and module cache directories of a source build and their cache key
#   build     go build the action's source (agent-hooks, agent-hooks-full, agent-hooks-otel); outputs path
#
# agent-hooks-full and agent-hooks-otel (the telemetry shipper) always land next to agent-hooks:
# that is where agent-hooks looks for them.
#
# Nothing runs from a cache. The tool cache outlives jobs on a self-hosted runner and may be shared
# by its runners, and actions/cache takes what a job left in a path at its end: both are written by
# whatever ran in an earlier job, the gated agent included. So the cache holds only the release's
# archive, and every run fetches the release's checksums afresh, copies the cached archive into a
# folder of its own, checks the copy and unpacks that: the bytes checked are the bytes run. The
# release path uses no actions/cache at all: its restore unpacks with tar -P, so an entry someone
# else saved under the key could write anywhere, this script included, before it runs.
#
# Everything comes from the environment the step sets (AGENT_HOOKS_*) and the runner's (RUNNER_*,
# GITHUB_OUTPUT); nothing from a template substituted into this text. bash 3.2 (macOS) compatible.
set -euo pipefail

# Workflow-command data escaping (a ref or a URL could hold a % or a line break).
escape() {
	local s=$1
	s=${s//'%'/%25}
	s=${s//$'\r'/%0D}
	s=${s//$'\n'/%0A}
	printf '%s' "$s"
}
die() {
	echo "::error title=agent-hooks::$(escape "$*")"
	exit 1
}
notice() { echo "::notice title=agent-hooks::$(escape "$*")"; }
warning() { echo "::warning title=agent-hooks::$(escape "$*")"; }
output() {
	case $2 in *$'\n'* | *$'\r'*) die "output $1 holds a line break" ;; esac
	printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
}

# posix_path and native_path convert between the forms Git Bash and Windows programs (actions/cache)
# understand; elsewhere they change nothing.
posix_path() { if [ -n "$1" ] && command -v cygpath >/dev/null 2>&1; then cygpath -u "$1"; else printf '%s' "$1"; fi; }
native_path() { if [ -n "$1" ] && command -v cygpath >/dev/null 2>&1; then cygpath -w "$1"; else printf '%s' "$1"; fi; }

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum | cut -d' ' -f1
	else
		shasum -a 256 | cut -d' ' -f1 # macOS
	fi
}

# exe NAME is the file name of the program NAME on this runner.
exe() { if [ "${RUNNER_OS:-}" = Windows ]; then printf '%s.exe' "$1"; else printf '%s' "$1"; fi; }

# The repository and ref the action runs from. A remote action lives in
# <runner>/_actions/<owner>/<repo>/<ref> (actions/runner, ActionManager): that path is exact, while
# github.action_ref and github.action_repository are unset in some composite contexts and name the
# outer action in a nested one (actions/runner#2473). So the path first, the context second; a local
# action (uses: ./) has neither and builds from source.
action_repo_ref() {
	local path rest owner name ref
	path=$(posix_path "${AGENT_HOOKS_ACTION_PATH:-}")
	path=${path%/}
	case $path in
	*/_actions/*/*/*)
		rest=${path##*/_actions/}
		owner=${rest%%/*}
		rest=${rest#*/}
		name=${rest%%/*}
		ref=${rest#*/}
		printf '%s/%s|%s' "$owner" "$name" "$ref"
		return
		;;
	esac
	printf '%s|%s' "${AGENT_HOOKS_ACTION_REPOSITORY:-}" "${AGENT_HOOKS_ACTION_REF:-}"
}

stable_re='^v[0-9]+\.[0-9]+\.[0-9]+$'
semver_re='^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'

# tags_at prints, from `git ls-remote --tags` output on stdin, "<tag> <commit>" for every tag with
# the commit it points at (peeled through annotated tags).
tags_at() {
	awk -F'\t' '{
		n = $2; sub(/^refs\/tags\//, "", n)
		if (n ~ /\^\{\}$/) { sub(/\^\{\}$/, "", n); peeled[n] = $1 } else { plain[n] = $1 }
	} END { for (n in plain) print n, ((n in peeled) ? peeled[n] : plain[n]) }'
}

# newest prints the highest of the vX.Y.Z tags on stdin.
newest() { sed 's/^v//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1 | sed 's/^/v/'; }

resolve() {
	local os arch repo ref tag="" commit="" refs listed
	case ${RUNNER_OS:-} in Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ;; *) os="" ;; esac
	case ${RUNNER_ARCH:-} in X64) arch=amd64 ;; ARM64) arch=arm64 ;; *) arch="" ;; esac
	IFS='|' read -r repo ref <<<"$(action_repo_ref)" || true
	output os "$os"
	output arch "$arch"

	if [ -z "$os" ] || [ -z "$arch" ]; then
		notice "no release binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}; building agent-hooks from source"
		return
	fi
	if ! [[ $repo =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || ! [[ $ref =~ ^[A-Za-z0-9_./-]+$ ]]; then
		echo "agent-hooks: a local action or unknown ref; building from source"
		return
	fi

	if [ -n "${AGENT_HOOKS_VERSION:-}" ]; then
		# The version input: that release, whatever the action's own ref.
		tag=v${AGENT_HOOKS_VERSION#v}
		[[ $tag =~ $semver_re ]] || die "version: want a release such as v1.2.3, got \"$AGENT_HOOKS_VERSION\""
	elif [[ $ref =~ $semver_re ]]; then
		tag=$ref
	elif [[ $ref =~ ^v[0-9]+(\.[0-9]+)?$ ]] || [[ $ref =~ ^[0-9a-f]{40}$ ]]; then
		# A moving major (v1) or minor (v1.2) tag, or a commit: the release at the same commit.
		if ! refs=$(GIT_TERMINAL_PROMPT=0 git -c http.lowSpeedLimit=1000 -c http.lowSpeedTime=20 \
			ls-remote --tags "$AGENT_HOOKS_SERVER_URL/$repo.git" 2>&1); then
			notice "cannot list the tags of $repo ($refs); building agent-hooks from source"
			return
		fi
		listed=$(printf '%s\n' "$refs" | tags_at)
		if [[ $ref =~ ^[0-9a-f]{40}$ ]]; then
			commit=$ref
		else
			commit=$(printf '%s\n' "$listed" | awk -v t="$ref" '$1 == t { print $2 }')
		fi
		if [ -n "$commit" ]; then
			tag=$(printf '%s\n' "$listed" | awk -v c="$commit" -v p="$ref." '
				$2 == c && (p ~ /^[0-9a-f]+\.$/ || index($1, p) == 1) { print $1 }' |
				grep -E "$stable_re" | newest || true)
		fi
	fi
	if [ -z "$tag" ]; then
		echo "agent-hooks: no release matches $repo@$ref; building from source"
		output commit "$commit"
		return
	fi

	local version=${tag#v} dir
	dir="${RUNNER_TOOL_CACHE:-$RUNNER_TEMP}/agent-hooks/$version/$os-$arch"
	echo "agent-hooks: $repo@$ref is release $tag"
	output tag "$tag"
	output version "$version"
	output repository "$repo"
	output dir "$(native_path "$dir")"
}

# fetch URL FILE prints the HTTP status of a GET of URL into FILE; it fails when curl gets no answer.
fetch() { curl -sS -L --retry 3 --connect-timeout 20 --max-time 600 -o "$2" -w '%{http_code}' "$1"; }

# cached DIR FILE COPY copies DIR/FILE, the archive the tool cache holds for the release, to COPY,
# a file of this run's own, and says whether there was one: only a regular file reached through no
# symbolic link from the cache's own folders (FILE, DIR = agent-hooks/<version>/<os>-<arch>, and
# its parents) counts. A link could lead the copy anywhere, or the cache's writes later. What it
# copies is checked afterwards, on the copy.
cached() {
	local p=$1/$2 i
	[ -e "$p" ] || [ -L "$p" ] || return 1
	for i in 1 2 3 4; do
		if [ -L "$p" ]; then
			warning "the tool cache holds a symbolic link, $p: not used; downloading $2 afresh"
			return 1
		fi
		p=${p%/*}
	done
	if ! [ -f "$1/$2" ]; then
		warning "the tool cache holds $1/$2, not a regular file: not used; downloading it afresh"
		return 1
	fi
	if ! cp "$1/$2" "$3"; then
		warning "cannot copy $1/$2 out of the tool cache: not used; downloading it afresh"
		return 1
	fi
}

# keep DIR FILE SRC puts SRC, a checked archive, in the tool cache as DIR/FILE for the next job:
# written beside it and renamed over it, so that a link there is replaced, never followed. A link
# in place of DIR or a parent of it within the cache is removed first (the link, not what it leads
# to). The programs an older version of this script unpacked there go: nothing runs from the
# cache. The archive is public: readable by all, as a tool cache shared by runners needs. A cache
# that cannot be written is no error: this run has its own copy.
keep() {
	local dir=$1 p=$1 i part
	for i in 1 2 3; do
		if [ -L "$p" ]; then
			echo "agent-hooks: removing the symbolic link $p from the tool cache"
			rm -f "$p"
		fi
		p=${p%/*}
	done
	if ! mkdir -p "$dir" 2>/dev/null || ! part=$(mktemp "$dir/.$2.XXXXXX" 2>/dev/null); then
		echo "agent-hooks: not cached: cannot write to $dir"
		return 0
	fi
	if [ -d "$dir/$2" ] && ! [ -L "$dir/$2" ]; then rm -rf "$dir/$2"; fi
	if ! cp "$3" "$part" || ! chmod 644 "$part" || ! mv -f "$part" "$dir/$2"; then
		rm -f "$part"
		echo "agent-hooks: not cached: cannot write to $dir"
		return 0
	fi
	rm -f "$dir/$(exe agent-hooks)" "$dir/$(exe agent-hooks-full)" "$dir/$(exe agent-hooks-otel)" "$dir/.complete"
}

download() {
	local tag=$AGENT_HOOKS_TAG os=$AGENT_HOOKS_OS arch=$AGENT_HOOKS_ARCH
	local dir base sums asset code want got run
	dir=$(posix_path "$AGENT_HOOKS_DIR")
	base="$AGENT_HOOKS_SERVER_URL/$AGENT_HOOKS_REPOSITORY/releases/download/$tag"
	sums="agent-hooks_checksums.txt"
	asset="agent-hooks_${os}_${arch}.tar.gz"
	mkdir -p "$RUNNER_TEMP"
	tmp=$(mktemp -d "$(posix_path "$RUNNER_TEMP")/agent-hooks-download.XXXXXX") # global: the trap sees it
	trap 'rm -rf "$tmp"' EXIT

	# The checksums come from the release on every run, cache or not: nothing on this machine
	# could vouch for the cache.
	code=$(fetch "$base/$sums" "$tmp/$sums") || die "download $base/$sums failed: agent-hooks $tag cannot be verified"
	case $code in
	200) ;;
	404)
		notice "release $tag has no $sums (not published yet?); building agent-hooks from source"
		output path ""
		return
		;;
	*) die "download $base/$sums: HTTP $code; agent-hooks $tag cannot be verified" ;;
	esac
	want=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/$sums")
	[[ $want =~ ^[0-9a-f]{64}$ ]] || die "$sums of release $tag lists no SHA-256 for $asset"

	# checked is set once $tmp/$asset is the release's archive, and only then.
	local checked=""
	if cached "$dir" "$asset" "$tmp/$asset"; then
		got=$(sha256 <"$tmp/$asset")
		if [ "$got" = "$want" ]; then
			checked=1
			echo "agent-hooks: $tag from the cache (SHA-256 $got, as the release's $sums says)"
		else
			warning "the cached $asset of release $tag is not the release's (SHA-256 $got, its $sums says $want): discarded; downloading it afresh"
		fi
	fi
	if [ -z "$checked" ]; then
		rm -f "$tmp/$asset" # whatever a failed copy left
		code=$(fetch "$base/$asset" "$tmp/$asset") || die "download $base/$asset failed"
		[ "$code" = 200 ] || die "download $base/$asset: HTTP $code"
		got=$(sha256 <"$tmp/$asset")
		[ "$got" = "$want" ] ||
			die "checksum mismatch: $asset of release $tag has SHA-256 $got, its $sums says $want; not installed"
		echo "agent-hooks: downloaded $tag ($asset, SHA-256 $got)"
		keep "$dir" "$asset" "$tmp/$asset"
	fi

	# The checked copy, unpacked into a folder of this run's own (the runner empties RUNNER_TEMP
	# before each job): what runs is what was checked, whatever the cache holds by then.
	run=$(mktemp -d "$(posix_path "$RUNNER_TEMP")/agent-hooks-bin.XXXXXX")
	(cd "$run" && tar -xzf "../${tmp##*/}/$asset" "$(exe agent-hooks)" "$(exe agent-hooks-full)" "$(exe agent-hooks-otel)") ||
		die "unpack $asset: no $(exe agent-hooks), $(exe agent-hooks-full) and $(exe agent-hooks-otel) in it"
	output path "$(native_path "$run/$(exe agent-hooks)")"
}

gocache() {
	local gocache=${GOCACHE:-} gomodcache=${GOMODCACHE:-} base sum src goversion
	cd "$(posix_path "$AGENT_HOOKS_ACTION_PATH")"
	if [ -n "$gocache" ] || [ -n "$gomodcache" ]; then
		# The job keeps Go caches of its own: use them, and leave their caching to the job.
		echo "agent-hooks: building with the job's GOCACHE/GOMODCACHE"
		output gocache "$gocache"
		output gomodcache "$gomodcache"
		return
	fi
	base="$(posix_path "$RUNNER_TEMP")/agent-hooks-go"
	goversion=$(go env GOVERSION)
	sum=$(sha256 <go.sum | cut -c1-16)
	src=$(find . -name '*.go' -type f -print0 | LC_ALL=C sort -z | xargs -0 cat | sha256 | cut -c1-16)
	local prefix="agent-hooks-go-$RUNNER_OS-$RUNNER_ARCH-$goversion"
	output gocache "$(native_path "$base/build")"
	output gomodcache "$(native_path "$base/mod")"
	output key "$prefix-$sum-$src"
	{
		echo "restore-keys<<AGENT_HOOKS_EOF"
		echo "$prefix-$sum-"
		echo "$prefix-"
		echo "AGENT_HOOKS_EOF"
	} >>"$GITHUB_OUTPUT"
}

build() {
	local dir bin ldflags="-s -w"
	cd "$(posix_path "$AGENT_HOOKS_ACTION_PATH")"
	dir="$(posix_path "$RUNNER_TEMP")/agent-hooks-bin"
	mkdir -p "$dir"
	bin="$dir/$(exe agent-hooks)"
	if [[ ${AGENT_HOOKS_COMMIT:-} =~ ^[0-9a-f]{40}$ ]]; then
		ldflags="$ldflags -X main.commit=$AGENT_HOOKS_COMMIT"
	fi
	# For the runner itself, whatever the job sets to build its own project. Both programs in one
	# build, into dir (-o with a directory names each after its package, .exe on Windows).
	GOOS="" GOARCH="" GOFLAGS="" GOWORK=off CGO_ENABLED=0 \
		GOCACHE=$(posix_path "${AGENT_HOOKS_GOCACHE:-}") GOMODCACHE=$(posix_path "${AGENT_HOOKS_GOMODCACHE:-}") \
		go build -trimpath -ldflags "$ldflags" -o "$dir/" ./cmd/agent-hooks ./cmd/agent-hooks-full ./cmd/agent-hooks-otel
	output path "$(native_path "$bin")"
}

# onpath puts the folder of the programs (AGENT_HOOKS_BIN: agent-hooks, with agent-hooks-full
# and agent-hooks-otel beside it) on the PATH of the job's later steps, so that an agent's step
# can run `agent-hooks hook <agent>`, and outputs the path of agent-hooks.
onpath() {
	local bin dir
	bin=$(posix_path "${AGENT_HOOKS_BIN:-}")
	[ -n "$bin" ] && [ -x "$bin" ] || die "no agent-hooks was installed"
	dir=$(dirname "$bin")
	native_path "$dir" >>"$GITHUB_PATH"
	echo "agent-hooks: $(native_path "$dir") is on the PATH of the job's later steps"
	output path "$(native_path "$bin")"
}

case ${1:-} in
resolve | download | gocache | build | onpath) "$1" ;;
*)
	echo "usage: install.sh resolve|download|gocache|build" >&2
	exit 2
	;;
esac
