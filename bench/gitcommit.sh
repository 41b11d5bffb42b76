#!/usr/bin/env bash
# Compares `agent-hooks run PostExecutionEnd` with a git-commit hook against `git add -A && git
# commit` on the same repository: FILES small tracked files (plus an ignored node_modules of
# FILES/10 files), MODIFIED of them changed and NEW files added. Each round starts both from
# identical repositories whose index stat data is fresh, times both (alternating which goes first),
# checks that both commits have exactly the same tree, and prints the median times and the ratio
# (git = 1.0). The issue's budget is 1.5x at 50,000 files. With GOGIT=1 it also times go-git's
# own AddWithOptions{All: true} + Commit (bench/gitcommit/main.go), the baseline the issue
# measured at 2.9-4.3x.
#
# usage: [GOGIT=1] bench/gitcommit.sh [FILES=50000] [MODIFIED=100] [NEW=20] [ROUNDS=5]
set -euo pipefail

files=${1:-50000}
modified=${2:-100}
new=${3:-20}
rounds=${4:-5}

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gitcommit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building agent-hooks..." >&2
(cd "$root" && go build -o "$work/agent-hooks" ./cmd/agent-hooks && go build -o "$work/gogit-commit" ./bench/gitcommit)
gogit=${GOGIT:-0}

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

# Two copies; a copy has new inodes and ctimes, so refresh the stat data to start both like a
# working repository. Each round resets them to the base commit and makes the same changes.
cp -a "$base" "$work/a"
cp -a "$base" "$work/b"
git -C "$work/a" update-index -q --refresh
git -C "$work/b" update-index -q --refresh
copies=("$work/a" "$work/b")
if [[ $gogit == 1 ]]; then
  cp -a "$base" "$work/c"
  git -C "$work/c" update-index -q --refresh
  copies+=("$work/c")
fi

git_times=() ah_times=() gg_times=()
for ((r = 1; r <= rounds; r++)); do
  for d in "${copies[@]}"; do
    git -C "$d" reset -q --hard "$(git -C "$base" rev-parse HEAD)"
    git -C "$d" clean -fdq
  done
  for d in "${copies[@]}"; do change "$d"; done
  sync

  run_git() { local t0; t0=$(now); (cd "$work/a" && git add -A && git commit -q -m "Complete issue #1: bench"); git_times+=($(($(now) - t0))); }
  run_ah() { local t0; t0=$(now); (cd "$work/b" && "$work/agent-hooks" run PostExecutionEnd --data issueNumber=1 --data issueTitle=bench >/dev/null); ah_times+=($(($(now) - t0))); }
  if ((r % 2)); then run_git; run_ah; else run_ah; run_git; fi
  if [[ $gogit == 1 ]]; then
    t0=$(now)
    "$work/gogit-commit" "$work/c"
    gg_times+=($(($(now) - t0)))
  fi

  ta=$(git -C "$work/a" rev-parse 'HEAD^{tree}')
  tb=$(git -C "$work/b" rev-parse 'HEAD^{tree}')
  if [[ $ta != "$tb" ]]; then
    echo "round $r: trees differ: git $ta, agent-hooks $tb" >&2
    git -C "$work/a" ls-tree -r HEAD > "$work/a.tree"
    git -C "$work/b" ls-tree -r HEAD > "$work/b.tree"
    diff "$work/a.tree" "$work/b.tree" | head -20 >&2
    exit 1
  fi
  git -C "$work/b" fsck --strict --no-progress >/dev/null 2>&1 || { echo "round $r: git fsck --strict failed" >&2; exit 1; }
  printf 'round %d: git %d ms, agent-hooks %d ms\n' "$r" $((git_times[-1] / 1000000)) $((ah_times[-1] / 1000000)) >&2
done

g=$(printf '%s\n' "${git_times[@]}" | median)
a=$(printf '%s\n' "${ah_times[@]}" | median)
printf 'files=%d modified=%d new=%d rounds=%d\n' "$files" "$modified" "$new" "$rounds"
div() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; }
printf 'git add -A && git commit:            %7.1f ms (median)\n' "$(div "$g" 1000000)"
printf 'agent-hooks run PostExecutionEnd:    %7.1f ms (median)\n' "$(div "$a" 1000000)"
printf 'ratio (agent-hooks / git):           %7.2fx (budget 1.50x); same tree: yes\n' "$(div "$a" "$g")"
if [[ $gogit == 1 ]]; then
  gg=$(printf '%s\n' "${gg_times[@]}" | median)
  printf 'go-git AddWithOptions{All} + Commit: %7.1f ms (median), %.2fx git\n' "$(div "$gg" 1000000)" "$(div "$gg" "$g")"
fi
