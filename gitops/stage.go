package gitops

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/autoagent/agent-hooks/gitops/internal/gitattr"
	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
	"github.com/autoagent/agent-hooks/gitops/internal/ignore"
)

// Selection restricts staging to some paths; the zero value stages everything, like `git add -A`.
type Selection struct {
	// Paths are files or directories relative to the work tree's top, slash-separated. A non-nil
	// empty list selects nothing.
	Paths []string
	// Globs are patterns relative to the top: * and ? within a path segment, ** for any number
	// of segments; a pattern matching a directory selects everything below it.
	Globs []string
}

func (s Selection) all() bool { return s.Paths == nil && len(s.Globs) == 0 }

// selects reports whether a file path is selected.
func (s Selection) selects(p string) bool {
	if s.all() {
		return true
	}
	for _, q := range s.Paths {
		if q == "" || q == "." || p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	for _, g := range s.Globs {
		if globMatch(strings.Split(strings.Trim(g, "/"), "/"), strings.Split(p, "/"), true) {
			return true
		}
	}
	return false
}

// mayContain reports whether a directory can hold a selected path, to prune the walk.
func (s Selection) mayContain(dir string) bool {
	if s.all() || len(s.Globs) > 0 {
		return true
	}
	for _, q := range s.Paths {
		if q == "" || q == "." || q == dir || strings.HasPrefix(q, dir+"/") || strings.HasPrefix(dir, q+"/") {
			return true
		}
	}
	return false
}

// globMatch matches path segments against pattern segments. With prefix, a pattern that matches
// a leading part of the path (a directory) matches too.
func globMatch(pat, p []string, prefix bool) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if globMatch(pat[1:], p[i:], prefix) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], p[0]); !ok {
			return false
		}
		pat, p = pat[1:], p[1:]
	}
	return len(p) == 0 || prefix
}

// maxEOLWarnings bounds the core.safecrlf warnings of one commit.
const maxEOLWarnings = 10

// staged is the index as it will be committed.
type staged struct {
	idx      *gitindex.Index
	changed  []string // paths whose entry was added, updated or removed
	warnings []string
	secrets  []SecretFinding // files left out: they look like secrets
}

// stager walks the work tree once, comparing it with the index. Directories are read by several
// goroutines at a time (on a large tree the directory reads and stat calls are most of the cost,
// as git's core.preloadIndex knows); per-entry results go to slots indexed by entry, the rest is
// guarded by mu.
type stager struct {
	r          *Repo
	idx        *gitindex.Index
	sel        Selection
	fileMode   bool
	trustCtime bool
	store      *gitobj.Store
	objects    *gitobj.Writer // writes into store
	attrs      *gitattr.Source
	conv       gitattr.Converter
	secrets    *secretCheck

	seen     []bool            // by entry: found in the work tree
	replaced []*gitindex.Entry // by entry: its new version

	mu          sync.Mutex
	added       []*gitindex.Entry
	changed     []string
	warnings    []string
	eolWarnings []string // core.safecrlf=warn's, one per file
	leftOut     []SecretFinding
	err         error

	wg  sync.WaitGroup
	sem chan struct{} // bounds the goroutines reading directories
}

// stage brings idx, which has no unresolved conflicts, in line with the work tree for the selected
// paths, writing blobs for changed content, except for the files that chk finds look like
// secrets: those keep their entry (or stay untracked). The index file is not written.
func (r *Repo) stage(idx *gitindex.Index, sel Selection, chk *secretCheck) (*staged, error) {
	s := &stager{
		r: r, idx: idx, sel: sel, secrets: chk,
		seen:       make([]bool, len(idx.Entries)),
		replaced:   make([]*gitindex.Entry, len(idx.Entries)),
		fileMode:   r.cfg.Bool("core", "", "filemode", true),
		trustCtime: r.cfg.Bool("core", "", "trustctime", true),
		store:      r.objects(),
		conv:       gitattr.NewConverter(r.cfg),
		sem:        make(chan struct{}, max(4, runtime.GOMAXPROCS(0)*2)),
	}
	s.objects = gitobj.NewWriter(s.store)
	ignores, err := r.baseIgnores()
	if err != nil {
		return nil, err
	}
	if s.attrs, err = r.loadAttrSource(); err != nil {
		return nil, err
	}
	s.spawn("", false, dirRules{ignores: ignores, attrs: s.attrs.Base})
	s.wg.Wait()
	if err := s.objects.Wait(); err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	return s.finish(), nil
}

func (r *Repo) indexPath() string { return filepath.Join(r.GitDir, "index") }

// hasTrackedUnder reports whether the index has entries below dir.
func (s *stager) hasTrackedUnder(dir string) bool {
	p := dir + "/"
	es := s.idx.Entries
	i := sort.Search(len(es), func(i int) bool { return es[i].Name >= p })
	return i < len(es) && strings.HasPrefix(es[i].Name, p)
}

// dirLists are the buffers the walk reads directories into, one a directory being read.
var dirLists = sync.Pool{New: func() any { return new(gitindex.DirList) }}

// joinOwned is dir/name in a string of its own: name may point into a DirList's buffer.
func joinOwned(dir, name string) string {
	if dir == "" {
		return strings.Clone(name)
	}
	return dir + "/" + name
}

// dirRules are the ignore patterns and attribute files that apply in a directory.
type dirRules struct {
	ignores []gitignore.Pattern
	attrs   gitattr.Stack
}

// spawn reads a directory in a goroutine of its own if the bound allows one more, else in this
// one (a goroutine a directory, waiting for its turn, would hold a goroutine's memory for each
// directory of the tree found before it was read).
func (s *stager) spawn(dir string, inIgnored bool, rules dirRules) {
	select {
	case s.sem <- struct{}{}:
	default:
		if err := s.walk(dir, inIgnored, rules); err != nil {
			s.fail(err)
		}
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		if err := s.walk(dir, inIgnored, rules); err != nil {
			s.fail(err)
		}
	}()
}

func (s *stager) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

func (s *stager) warn(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warnings = append(s.warnings, msg)
}

func (s *stager) failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err != nil
}

func (s *stager) walk(dir string, inIgnored bool, rules dirRules) error {
	if s.failed() {
		return nil
	}
	abs := filepath.Join(s.r.Root, filepath.FromSlash(dir))
	d, err := os.Open(abs)
	var names []string // pointing into list: a name kept is copied (joinOwned)
	if err == nil {
		defer d.Close()
		list := dirLists.Get().(*gitindex.DirList)
		defer dirLists.Put(list)
		names, err = list.Names(d)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && dir != "":
		return nil // removed while walking: its tracked files are deleted
	case errors.Is(err, fs.ErrPermission) && dir != "" && !s.hasTrackedUnder(dir):
		// git add -A warns and goes on; tracked files it cannot read are an error.
		s.warn(fmt.Sprintf("could not open directory %s/: %v", dir, err))
		return nil
	case err != nil:
		return fmt.Errorf("read directory %s: %w", abs, err)
	}
	attrsInTree := false
	for _, name := range names {
		if name != ".gitignore" && name != ".gitattributes" {
			continue
		}
		if st, err := gitindex.StatAt(d, name); err != nil || !st.Mode.IsRegular() {
			continue
		}
		if name == ".gitattributes" {
			attrsInTree = true
			continue
		}
		var domain []string
		if dir != "" {
			domain = strings.Split(dir, "/")
		}
		ps, err := ignore.ReadFile(filepath.Join(abs, ".gitignore"), domain)
		if err != nil {
			return err
		}
		// Copy so that sibling directories do not share the appended tail.
		rules.ignores = append(rules.ignores[:len(rules.ignores):len(rules.ignores)], ps...)
	}
	// As git add does, a .gitattributes missing from the work tree is read from the index, unless
	// its deletion is being staged: git add -A removes it from the index before it looks at the
	// attributes of the files of its directory.
	var fallback *gitindex.Entry
	if i, ok := s.idx.Find(gitindex.JoinPath(dir, ".gitattributes")); ok && !s.deletes(s.idx.Entries[i]) {
		fallback = s.idx.Entries[i]
	}
	f, err := s.r.readDirAttrs(dir, attrsInTree, fallback)
	if err != nil {
		return err
	}
	rules.attrs = rules.attrs.With(f)
	for _, name := range names {
		if name == ".git" {
			continue
		}
		st, err := gitindex.StatAt(d, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // vanished while walking: it is deleted
		case err != nil:
			return fmt.Errorf("stat %s: %w", gitindex.JoinPath(dir, name), err)
		}
		switch typ := st.Mode.Type(); {
		case typ.IsDir():
			if err := s.dir(joinOwned(dir, name), inIgnored, rules); err != nil {
				return err
			}
		case typ.IsRegular() || typ&fs.ModeSymlink != 0:
			if err := s.file(dir, name, st, inIgnored, rules); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *stager) dir(rel string, inIgnored bool, rules dirRules) error {
	if i, ok := s.idx.Find(rel); ok && s.idx.Entries[i].Mode == gitindex.ModeGitlink {
		return s.gitlink(rel, i)
	}
	if !s.sel.mayContain(rel) {
		return nil
	}
	ign := inIgnored || ignore.Ignored(rules.ignores, rel, true)
	tracked := s.hasTrackedUnder(rel)
	if ign && !tracked {
		return nil
	}
	if !tracked {
		abs := filepath.Join(s.r.Root, filepath.FromSlash(rel))
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			return s.gitlink(rel, -1)
		}
	}
	s.spawn(rel, ign, rules)
	return nil
}

// gitlink stages a submodule or nested repository as its HEAD commit.
func (s *stager) gitlink(rel string, i int) error {
	if i >= 0 {
		s.seen[i] = true
	}
	if !s.sel.selects(rel) {
		return nil
	}
	l, err := locateAt(filepath.Join(s.r.Root, filepath.FromSlash(rel)))
	if err != nil {
		return nil // an uninitialised submodule: keep what the index has
	}
	sub, err := l.open()
	if err != nil {
		return nil
	}
	head, err := sub.Head()
	if err != nil {
		return nil // no commit checked out: git cannot add it either
	}
	h := head.Hash()
	if i >= 0 && s.idx.Entries[i].Hash == h {
		return nil
	}
	e := &gitindex.Entry{Mode: gitindex.ModeGitlink, Hash: h, Name: rel}
	if i >= 0 {
		s.replaced[i] = e
	}
	s.record(e, i < 0)
	return nil
}

// record notes a staged change: e is new (added) or replaces an entry.
func (s *stager) record(e *gitindex.Entry, added bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if added {
		s.added = append(s.added, e)
	}
	s.changed = append(s.changed, e.Name)
}

// file stages the file name of dir, whose stat data is st.
func (s *stager) file(dir, name string, st gitindex.FileStat, inIgnored bool, rules dirRules) error {
	// A tracked file's path is its entry's name: no path is built for the files of a large tree.
	i, tracked := s.idx.FindIn(dir, name)
	var rel string
	if tracked {
		s.seen[i] = true
		rel = s.idx.Entries[i].Name
	} else {
		rel = joinOwned(dir, name)
	}
	if !s.sel.selects(rel) {
		return nil
	}
	var old *gitindex.Entry
	if tracked {
		old = s.idx.Entries[i]
		if old.SkipWorktree() || old.AssumeValid() {
			return nil // sparse checkout, or `git update-index --assume-unchanged`: not looked at
		}
	} else if inIgnored || ignore.Ignored(rules.ignores, rel, false) {
		return nil
	}
	mode := s.modeOf(st, old)
	if old != nil && !old.IntentToAdd() && old.Mode == mode && st.Matches(old, s.trustCtime) && !s.idx.Racy(old) {
		return nil
	}
	h, data, err := s.blob(rel, st, rules.attrs, old)
	if err != nil {
		return err
	}
	if old != nil && !old.IntentToAdd() && old.Mode == mode && old.Hash == h {
		// Same content, new stat data: refresh the entry so the next walk trusts it.
		e := *old
		e.SetStat(st)
		s.replaced[i] = &e
		return nil
	}
	// New content: checked before it is staged. data is nil for a large file, stored while
	// read: its name is checked, not its content.
	if f, bad, err := s.secrets.check(rel, h, data); err != nil {
		return err
	} else if bad {
		s.mu.Lock()
		s.leftOut = append(s.leftOut, f)
		s.mu.Unlock()
		return nil
	}
	if data != nil {
		s.objects.Add(plumbing.BlobObject, h, data)
	}
	e := &gitindex.Entry{Mode: mode, Hash: h, Name: rel}
	e.SetStat(st)
	if old != nil {
		e.Ext = old.Ext &^ gitindex.ExtIntentToAdd
		e.Flags |= old.Flags & gitindex.FlagAssumeValid
		s.replaced[i] = e
	}
	s.record(e, old == nil)
	return nil
}

// modeOf is the index mode of a file: git keeps only the owner's executable bit, and with
// core.fileMode=false keeps whatever the index had.
func (s *stager) modeOf(st gitindex.FileStat, old *gitindex.Entry) uint32 {
	switch {
	case st.Mode&fs.ModeSymlink != 0:
		return gitindex.ModeSymlink
	case !s.fileMode && old != nil && (old.Mode == gitindex.ModeRegular || old.Mode == gitindex.ModeExecutable):
		return old.Mode
	case s.fileMode && st.Mode&0o100 != 0:
		return gitindex.ModeExecutable
	}
	return gitindex.ModeRegular
}

// blob is what git add stores for a file: the id of its content after the clean conversion, or
// of a symlink's target, and that content; nil when it was stored while read (a large file).
// old is the file's index entry, if any.
func (s *stager) blob(rel string, st gitindex.FileStat, attrs gitattr.Stack, old *gitindex.Entry) (plumbing.Hash, []byte, error) {
	abs := filepath.Join(s.r.Root, filepath.FromSlash(rel))
	if st.Mode&fs.ModeSymlink != 0 {
		t, err := os.Readlink(abs)
		if err != nil {
			return plumbing.ZeroHash, nil, fmt.Errorf("read link %s: %w", rel, err)
		}
		data := []byte(filepath.ToSlash(t))
		return gitobj.ID(plumbing.BlobObject, data), data, nil
	}
	ca := s.conv.For(s.attrs.Lookup(attrs, rel))
	h, data, warning, err := s.r.readClean(abs, rel, s.conv, ca, old, true, s.store)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if warning != "" {
		s.mu.Lock()
		s.eolWarnings = append(s.eolWarnings, warning)
		s.mu.Unlock()
	}
	return h, data, nil
}

// deletes reports whether e is removed from the index when its file is not in the work tree.
func (s *stager) deletes(e *gitindex.Entry) bool {
	return !e.SkipWorktree() && !e.AssumeValid() && s.sel.selects(e.Name)
}

// finish builds the new entry list: replaced entries, removed ones (tracked, selected, not
// found), new files.
func (s *stager) finish() *staged {
	old := s.idx
	out := make([]*gitindex.Entry, 0, len(old.Entries)+len(s.added))
	for i, e := range old.Entries {
		switch {
		case s.replaced[i] != nil:
			out = append(out, s.replaced[i])
		case !s.seen[i] && s.deletes(e):
			s.changed = append(s.changed, e.Name)
		default:
			out = append(out, e)
		}
	}
	out = append(out, s.added...)
	gitindex.SortEntries(out)
	tree := gitindex.CacheTree{}
	for k, v := range old.Tree {
		tree[k] = v
	}
	for _, p := range s.changed {
		tree.Invalidate(p)
	}
	sort.Strings(s.changed)
	sort.Strings(s.eolWarnings)
	if n := len(s.eolWarnings); n > maxEOLWarnings {
		s.eolWarnings = append(s.eolWarnings[:maxEOLWarnings-1], fmt.Sprintf("and %d more files whose line endings the next checkout changes", n-maxEOLWarnings+1))
	}
	sort.Slice(s.leftOut, func(i, j int) bool { return s.leftOut[i].Path < s.leftOut[j].Path })
	return &staged{
		idx:      &gitindex.Index{Version: old.Version, Entries: out, Tree: tree, ResolveUndo: old.ResolveUndo, Sum: old.Sum, MtimeS: old.MtimeS, MtimeN: old.MtimeN},
		changed:  s.changed,
		warnings: append(s.warnings, s.eolWarnings...),
		secrets:  s.leftOut,
	}
}
