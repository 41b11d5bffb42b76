package gitcmd

import (
	"strings"
	"sync"
)

// git's commands, as data: which commit or push, which run a command of their own, and the
// options that take a value (to read past them).

// gate is what a git command does that a gate guards.
type gate uint8

const (
	noGate gate = iota
	commits
	pushes
	commitsAndPushes
)

// gitCommand is what the scanner knows of one git command.
type gitCommand struct {
	gate gate
	// subs are the gates of a command's own subcommands (`stash pop`, `subtree push`); one not
	// listed has the gate "*" names, or none. "" is the command without a subcommand.
	subs map[string]gate
	// valued are the options that take a value, as a command line writes them ("-m --message").
	valued string
	// scripts are the options whose value is a command git runs through the shell.
	scripts string
	// noVerifyN: -n is --no-verify (commit), not --dry-run (push) or --no-stat (merge).
	noVerifyN bool
	// plumbing writes commits or updates another repository's refs without running any of the
	// repository's hooks: a bypass of its own (commit-tree + update-ref, send-pack).
	plumbing bool
}

// gitCommands are the git commands that commit, push, or run a command of their own. The list,
// from git's documentation:
//
//   - commit: commit, commit-tree, merge, pull, rebase, cherry-pick, revert, am, stash (push,
//     save, create, store and plain `git stash`), notes (add, append, copy, edit, merge, remove,
//     prune), replace, replay, filter-branch, fast-import, hash-object -w -t commit, subtree
//     (add, merge, pull, split), quiltimport, citool, cvsimport, archimport, svn (clone, fetch,
//     rebase), p4 (clone, sync, rebase), submodule update --merge/--rebase.
//   - push: push, send-pack, http-push, receive-pack, http-backend, the remote helpers
//     (remote-http, remote-https, remote-ftp, remote-ftps, remote-ext, remote-fd), subtree push,
//     svn dcommit/set-tree/commit-diff/branch/tag, p4 submit, cvsexportcommit; gui does both.
//
// Moving a ref to an existing commit (update-ref, branch -f, reset) is neither.
var gitCommands = map[string]gitCommand{
	"commit": {gate: commits, noVerifyN: true,
		valued: "-m -F -c -C -t --message --file --author --date --reuse-message --reedit-message --fixup --squash --template --cleanup --pathspec-from-file --trailer"},
	"commit-tree":   {gate: commits, plumbing: true, valued: "-p -m -F"},
	"merge":         {gate: commits, valued: "-m -F -s -X --message --file --strategy --strategy-option --into-name"},
	"pull":          {gate: commits, valued: "-s -X -j -o --strategy --strategy-option --jobs --depth --deepen --shallow-since --shallow-exclude --negotiation-tip --server-option --upload-pack", scripts: "--upload-pack"},
	"rebase":        {gate: commits, valued: "-s -X -x -C --onto --strategy --strategy-option --exec", scripts: "-x --exec"},
	"cherry-pick":   {gate: commits, valued: "-m -s -X --mainline --strategy --strategy-option"},
	"revert":        {gate: commits, valued: "-m -s -X --mainline --strategy --strategy-option"},
	"am":            {gate: commits, valued: "--directory --exclude --include --patch-format --resolvemsg --quoted-cr"},
	"stash":         {gate: commits, subs: map[string]gate{"": commits, "push": commits, "save": commits, "create": commits, "store": commits}, valued: "-m --message --pathspec-from-file"},
	"notes":         {subs: map[string]gate{"add": commits, "append": commits, "copy": commits, "edit": commits, "merge": commits, "remove": commits, "prune": commits}, valued: "--ref"},
	"replace":       {gate: commits},
	"replay":        {gate: commits, valued: "--onto --advance --contained"},
	"filter-branch": {gate: commits, scripts: "--setup --env-filter --tree-filter --index-filter --parent-filter --msg-filter --commit-filter --tag-name-filter", valued: "--subdirectory-filter --prune-empty -d --original --state-branch"},
	"fast-import":   {gate: commits, plumbing: true},
	"hash-object":   {valued: "-t --path"},
	"subtree": {subs: map[string]gate{"add": commits, "merge": commits, "pull": commits, "split": commits, "push": commitsAndPushes},
		valued: "-P -m -b --prefix --message --branch --onto --annotate"},
	"quiltimport":     {gate: commits, valued: "--author --patches --series"},
	"citool":          {gate: commits},
	"cvsimport":       {gate: commits},
	"archimport":      {gate: commits},
	"svn":             {subs: map[string]gate{"clone": commits, "fetch": commits, "rebase": commits, "dcommit": commitsAndPushes, "set-tree": pushes, "commit-diff": pushes, "branch": pushes, "tag": pushes}},
	"p4":              {subs: map[string]gate{"clone": commits, "sync": commits, "rebase": commits, "submit": commitsAndPushes}},
	"submodule":       {valued: "--reference --depth --jobs -j --name -b --branch"},
	"push":            {gate: pushes, valued: "-o --repo --receive-pack --exec --push-option", scripts: "--receive-pack --exec"},
	"send-pack":       {gate: pushes, plumbing: true, valued: "--receive-pack --exec --push-option", scripts: "--receive-pack --exec"},
	"http-push":       {gate: pushes, plumbing: true},
	"receive-pack":    {gate: pushes, plumbing: true},
	"http-backend":    {gate: pushes, plumbing: true},
	"remote-http":     {gate: pushes, plumbing: true},
	"remote-https":    {gate: pushes, plumbing: true},
	"remote-ftp":      {gate: pushes, plumbing: true},
	"remote-ftps":     {gate: pushes, plumbing: true},
	"remote-ext":      {gate: pushes, plumbing: true},
	"remote-fd":       {gate: pushes, plumbing: true},
	"cvsexportcommit": {gate: pushes},
	"gui":             {gate: commitsAndPushes},
	// Commands that run a command of their own.
	"fetch":     {valued: "--upload-pack -j --jobs --depth --deepen --shallow-since --shallow-exclude --negotiation-tip --server-option -o", scripts: "--upload-pack"},
	"clone":     {valued: "-u -o -b -c -j --upload-pack --origin --branch --config --jobs --depth --template --reference --separate-git-dir --server-option --filter --shallow-since --shallow-exclude --bundle-uri", scripts: "-u --upload-pack"},
	"ls-remote": {valued: "--upload-pack -o --server-option --sort", scripts: "--upload-pack"},
	"archive":   {valued: "-o --output --remote --exec --prefix --format --add-file --add-virtual-file", scripts: "--exec"},
	"difftool":  {valued: "-x -t --extcmd --tool", scripts: "-x --extcmd"},
	"instaweb":  {valued: "-d -p -b --httpd --port --browser", scripts: "-d --httpd"},
	"send-email": {valued: "--to-cmd --cc-cmd --header-cmd --sendmail-cmd --smtp-server",
		scripts: "--to-cmd --cc-cmd --header-cmd --sendmail-cmd"},
	"shell":         {},
	"bisect":        {},
	"for-each-repo": {},
	"config":        {},
}

// builtins are the commands git runs itself (built in or shipped with it): an alias cannot
// shadow them. Built on first use, as gitWords and compiled are: a start-up that reads no
// shell command pays nothing for them. Any other `git NAME` is an alias or a program found elsewhere.
var builtins = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`add add--interactive am annotate apply archimport archive
		backfill bisect bisect--helper blame branch bugreport bundle cat-file check-attr
		check-ignore check-mailmap check-ref-format checkout checkout--worker checkout-index cherry
		cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects
		credential credential-cache credential-cache--daemon credential-store cvsexportcommit
		cvsimport cvsserver daemon describe diagnose diff diff-files diff-index diff-pairs diff-tree
		difftool difftool--helper env--helper fast-export fast-import fetch fetch-pack filter-branch
		fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc
		get-tar-commit-id grep gui hash-object help hook http-backend http-fetch http-push imap-send
		index-pack init init-db instaweb interpret-trailers last-modified log ls-files ls-remote
		ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-octopus
		merge-one-file merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs
		merge-resolve merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev
		notes p4 pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed pull push
		quiltimport range-diff read-tree rebase receive-pack reflog refs remote remote-ext remote-fd
		remote-ftp remote-ftps remote-http remote-https repack replace replay repo request-pull
		rerere reset restore rev-list rev-parse revert rm send-email send-pack sh-i18n--envsubst
		shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status
		stripspace submodule submodule--helper subtree svn switch symbolic-ref tag unpack-file
		unpack-objects update-index update-ref update-server-info upload-archive
		upload-archive--writer upload-pack var verify-commit verify-pack verify-tag version
		web--browse whatchanged worktree write-tree`) {
		m[name] = true
	}
	return m
})

// commandKeys are configuration keys whose value is a command git runs (through the shell):
// set on the command line (`git -c core.pager=… log`), they are read as scripts.
var commandKeys = map[string]bool{
	"core.pager": true, "core.editor": true, "core.sshcommand": true, "core.gitproxy": true,
	"core.fsmonitor": true, "core.askpass": true, "core.alternaterefscommand": true,
	"sequence.editor": true, "diff.external": true, "gpg.program": true,
	"interactive.difffilter": true, "credential.helper": true, "uploadpack.packobjectshook": true,
	"imap.tunnel": true, "sendemail.tocmd": true, "sendemail.cccmd": true,
	"sendemail.sendmailcmd": true, "sendemail.headercmd": true,
}

// commandKeySuffixes are the last parts of sectioned keys whose value is a command
// (diff.<driver>.textconv, filter.<driver>.clean, remote.<name>.receivepack, …).
var commandKeySuffixes = []string{".command", ".textconv", ".driver", ".clean", ".smudge",
	".process", ".cmd", ".program", ".helper", ".receivepack", ".uploadpack", ".sshcommand"}

// isCommandKey reports whether a (lower-cased) configuration key names a command git runs.
func isCommandKey(key string) bool {
	if commandKeys[key] || strings.HasPrefix(key, "pager.") {
		return true
	}
	if strings.Count(key, ".") < 2 {
		return false
	}
	for _, s := range commandKeySuffixes {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// hookBypassEnv are hook managers' switches that skip the repository's hooks, with the values
// that skip them (nil: any value): husky, pre-commit's SKIP, lefthook, overcommit.
var hookBypassEnv = map[string][]string{
	"HUSKY":              {"0"},
	"HUSKY_SKIP_HOOKS":   {"1", "true"},
	"SKIP":               nil,
	"LEFTHOOK":           {"0", "false"},
	"LEFTHOOK_EXCLUDE":   nil,
	"OVERCOMMIT_DISABLE": {"1"},
}

// commandEnv are the environment variables whose value is a command git runs.
var commandEnv = []string{"GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL",
	"GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS",
	"GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND"}

// gitWords are the words that say a command line may be about committing or pushing.
var gitWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"alias": true}
	for name, c := range gitCommands {
		if c.gate != noGate || len(c.subs) > 0 {
			m[name] = true
		}
	}
	return m
})

// options is a command's option list split into short letters and long names.
type options struct {
	short string
	long  map[string]bool
}

func compile(list string) options {
	o := options{long: map[string]bool{}}
	for _, opt := range strings.Fields(list) {
		if strings.HasPrefix(opt, "--") {
			o.long[opt] = true
		} else if len(opt) == 2 {
			o.short += opt[1:]
		}
	}
	return o
}

var compiled = sync.OnceValue(func() map[string][2]options {
	m := map[string][2]options{}
	for name, c := range gitCommands {
		m[name] = [2]options{compile(c.valued), compile(c.scripts)}
	}
	return m
})
