#!/usr/bin/env bash
# Compares `agent-hooks run PostExecutionEnd` with a git-commit hook, and gitops alone
# (bench/gitcommit/main.go: gitops.Open + Repo.Commit, nothing else of agent-hooks), against `git
# add -A && git commit` on the same repository: FILES small tracked files (plus an ignored
# node_modules of FILES/10 files), MODIFIED of them changed and NEW files added. Each round starts
# all from identical repositories whose index stat data is fresh, times them (alternating which
# goes first; wall time, and CPU time, which a busy machine disturbs less) and takes their maximum
# resident set size with /usr/bin/time (for git, the largest of its two processes), checks that
# the commits have exactly the same tree, and prints the median times and memory and their ratios
# (git = 1.0). The budget is 1.5x git's time and 1.5x its memory (issue 11 measures at 200,000
# files; at a few thousand the Go runtime's fixed ~10 MB dominates the memory ratio). The last
# row is `agent-hooks-full version`: what the full program, to which agent-hooks hands a
# git-commit hook (in its place: the RSS measured is the larger of the two), holds before it does
# anything (mostly its own code, mapped from its file), the floor of the agent-hooks row.
#
# usage: [KEEP=1] bench/gitcommit.sh [FILES=50000] [MODIFIED=100] [NEW=20] [ROUNDS=5]
# KEEP=1 leaves the repositories in place (for profiling: bench/gitcommit -memprofile) and says
# where.
set -euo pipefail

files=${1:-50000}
modified=${2:-100}
new=${3:-20}
rounds=${4:-5}

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gitcommit-bench.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
  trap 'echo "kept $work" >&2' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi

[[ -x /usr/bin/time ]] || { echo "bench/gitcommit.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 1; }
echo "building agent-hooks..." >&2
(cd "$root" && go build -o "$work/" ./cmd/agent-hooks ./cmd/agent-hooks-full && go build -o "$work/gitops-commit" ./bench/gitcommit)

# From here on nothing of the user's own git or agent-hooks configuration takes part.
export HOME="$work/home" AUTOAGENT_HOME="$work/home/.autoagent"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GITHUB_ACTIONS AUTOAGENT_SESSION_ID
mkdir -p "$HOME"
git config --global user.name "Bench"
git config --global user.email "bench@example.com"
git config --global gc.auto 0 # no background gc racing the copies and the timings

echo "generating $files files..." >&2
base="$work/base"
git init -q -b main "$base"
cd "$base"
# 50 files a directory, 10 directories a parent: d000/s0/f00000.txt …
awk -v n="$files" 'BEGIN {
  for (i = 0; i < n; i++) {
    d = sprintf("d%03d/s%d", int(i / 500), int(i / 50) % 10)
    if (!(d in made)) { made[d] = 1; system("mkdir -p " d) }
    f = sprintf("%s/f%05d.txt", d, i)
    printf "file %d\nsome content line\n", i > f
    close(f)
  }
}'
mkdir -p node_modules/pkg
awk -v n="$((files / 10))" 'BEGIN { for (i = 0; i < n; i++) { f = sprintf("node_modules/pkg/m%05d.js", i); print "x" > f; close(f) } }'
printf 'node_modules/\n*.log\n' > .gitignore
mkdir -p .autoagent
cat > .autoagent/config.json <<'JSON'
{"hooks": {"PostExecutionEnd": [{"type": "git-commit", "message": "Complete issue #{{issueNumber}}: {{issueTitle}}"}]}}
JSON
git add -A
git commit -q -m base
git gc -q # packed, as a real repository mostly is
sleep 1 # no entry is racily clean

change() { # the same edits in both copies
  local dir=$1 i step=$((files / modified))
  for ((i = 0; i < modified; i++)); do
    local n=$((i * step))
    printf 'changed %d\n' "$n" >> "$dir/d$(printf %03d $((n / 500)))/s$(((n / 50) % 10))/f$(printf %05d "$n").txt"
  done
  mkdir -p "$dir/added"
  for ((i = 0; i < new; i++)); do printf 'new %d\n' "$i" > "$dir/added/n$i.txt"; done
  echo "ignored" > "$dir/debug.log"
}

now() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# Three copies (git, agent-hooks, gitops); a copy has new inodes and ctimes, so refresh the stat
# data to start each like a working repository. Each round resets them to the base commit and
# makes the same changes.
copies=("$work/a" "$work/b" "$work/c")
for d in "${copies[@]}"; do
  cp -a "$base" "$d"
  git -C "$d" update-index -q --refresh
done

# measure NAME DIR CMD…: runs CMD in DIR, appending its time (ns) to NAME_times, its CPU time
# (user + system, ms: what a busy machine disturbs least) to NAME_cpu and its maximum resident set
# size (KiB) to NAME_rss.
measure() {
  local name=$1 dir=$2 t0 t1
  shift 2
  t0=$(now)
  (cd "$dir" && /usr/bin/time -f '%M %U %S' -o "$work/rss" "$@")
  t1=$(now)
  eval "${name}_times+=($((t1 - t0)))"
  read -r rss user sys < <(tail -1 "$work/rss")
  eval "${name}_rss+=($rss)"
  eval "${name}_cpu+=($(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }'))"
}

git_times=() ah_times=() go_times=() git_rss=() ah_rss=() go_rss=() git_cpu=() ah_cpu=() go_cpu=()
fl_times=() fl_rss=() fl_cpu=()
for ((r = 1; r <= rounds; r++)); do
  for d in "${copies[@]}"; do
    git -C "$d" reset -q --hard "$(git -C "$base" rev-parse HEAD)"
    git -C "$d" clean -fdq
  done
  for d in "${copies[@]}"; do change "$d"; done
  sync

  run_git() { measure git "$work/a" sh -c 'git add -A && git commit -q -m "Complete issue #1: bench"'; }
  run_ah() { measure ah "$work/b" sh -c '"$0" run PostExecutionEnd --data issueNumber=1 --data issueTitle=bench >/dev/null' "$work/agent-hooks"; }
  run_go() { measure go "$work/c" "$work/gitops-commit" .; }
  measure fl "$work/b" sh -c '"$0" version >/dev/null' "$work/agent-hooks-full"
  case $((r % 3)) in
  1) run_git; run_ah; run_go ;;
  2) run_ah; run_go; run_git ;;
  0) run_go; run_git; run_ah ;;
  esac

  ta=$(git -C "$work/a" rev-parse 'HEAD^{tree}')
  for d in "$work/b" "$work/c"; do
    tb=$(git -C "$d" rev-parse 'HEAD^{tree}')
    if [[ $ta != "$tb" ]]; then
      echo "round $r: trees differ: git $ta, $d $tb" >&2
      git -C "$work/a" ls-tree -r HEAD > "$work/a.tree"
      git -C "$d" ls-tree -r HEAD > "$work/x.tree"
      diff "$work/a.tree" "$work/x.tree" | head -20 >&2
      exit 1
    fi
    git -C "$d" fsck --strict --no-progress >/dev/null 2>&1 || { echo "round $r: git fsck --strict failed in $d" >&2; exit 1; }
  done
  printf 'round %d: git %d ms %d KiB, agent-hooks %d ms %d KiB, gitops %d ms %d KiB\n' "$r" \
    $((git_times[-1] / 1000000)) "${git_rss[-1]}" $((ah_times[-1] / 1000000)) "${ah_rss[-1]}" \
    $((go_times[-1] / 1000000)) "${go_rss[-1]}" >&2
done

med() { local -n a=$1; printf '%s\n' "${a[@]}" | median; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; }
g=$(med git_times) a=$(med ah_times) o=$(med go_times)
gc=$(med git_cpu) ac=$(med ah_cpu) oc=$(med go_cpu)
gm=$(med git_rss) am=$(med ah_rss) om=$(med go_rss)
printf 'files=%d modified=%d new=%d rounds=%d (medians; same tree: yes)\n' "$files" "$modified" "$new" "$rounds"
printf '%-34s %9s %8s %9s %7s %7s %7s\n' "" "time ms" "cpu ms" "max RSS" "time" "cpu" "memory"
row() { printf '%-34s %9.1f %8d %6d MB %6.2fx %6.2fx %6.2fx\n' "$1" "$(div "$2" 1000000)" "$3" $(($4 / 1024)) "$(div "$2" "$g")" "$(div "$3" "$gc")" "$(div "$4" "$gm")"; }
row "git add -A && git commit" "$g" "$gc" "$gm"
row "agent-hooks run PostExecutionEnd" "$a" "$ac" "$am"
row "gitops (bench/gitcommit)" "$o" "$oc" "$om"
row "agent-hooks-full version (floor)" "$(med fl_times)" "$(med fl_cpu)" "$(med fl_rss)"
printf 'budget: 1.50x time and 1.50x memory\n' 
