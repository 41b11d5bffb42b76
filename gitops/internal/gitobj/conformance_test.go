package gitobj

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
)

// The conformance suite: ids are git hash-object's, objects written here are read by git cat-file
// and pass git fsck, and every object git stores (loose, packed as deltas, in an alternate) reads
// back as git cat-file shows it.

func randomBytes(seed uint64, n int) []byte {
	rnd := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rnd.IntN(256))
	}
	return b
}

var contents = map[string][]byte{
	"empty":  nil,
	"text":   []byte("hello\nworld\n"),
	"binary": randomBytes(1, 4096),
	"large":  randomBytes(2, 3<<20),
}

// TestIDIsGitHashObject: ID, Hasher and HashFrom give git hash-object's ids.
func TestIDIsGitHashObject(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := t.TempDir()
	for name, data := range contents {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := e.Git(t, dir, "hash-object", "--no-filters", p)
		if got := ID(plumbing.BlobObject, data).String(); got != want {
			t.Errorf("%s: ID = %s, git hash-object = %s", name, got, want)
		}
		got, err := HashFrom(plumbing.BlobObject, bytes.NewReader(data), int64(len(data)))
		if err != nil || got.String() != want {
			t.Errorf("%s: HashFrom = %s, %v; git hash-object = %s", name, got, err, want)
		}
	}
	if got, want := EmptyTree.String(), e.Git(t, dir, "hash-object", "-t", "tree", "/dev/null"); got != want {
		t.Errorf("EmptyTree = %s, git: %s", got, want)
	}
}

// TestWrittenObjectsAreGits: loose objects written whole or while hashed from a stream are read
// by git as written and pass git fsck --strict; a stream of another size than said is refused and
// leaves nothing behind.
func TestWrittenObjectsAreGits(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, nil)
	objects := filepath.Join(dir, ".git", "objects")
	reader := NewReader(objects)
	defer reader.Close()
	s := NewStore(objects, reader.Has)
	w := NewWriter(s)
	var ids []plumbing.Hash
	for _, name := range []string{"empty", "text", "binary"} {
		h := ID(plumbing.BlobObject, contents[name])
		w.Add(plumbing.BlobObject, h, contents[name])
		ids = append(ids, h)
	}
	if err := w.Wait(); err != nil {
		t.Fatal(err)
	}
	big, err := s.WriteBlobFrom(bytes.NewReader(contents["large"]), int64(len(contents["large"])))
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, big)
	again, err := s.WriteBlobFrom(bytes.NewReader(contents["large"]), int64(len(contents["large"])))
	if err != nil || again != big {
		t.Fatalf("the same content again: %s, %v", again, err)
	}
	tree := []byte("100644 text\x00" + string(ids[1][:]))
	th := ID(plumbing.TreeObject, tree)
	if err := s.WriteLoose(plumbing.TreeObject, th, tree); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"empty", "text", "binary", "large"} {
		if got := e.Git(t, dir, "cat-file", "-t", ids[i].String()); got != "blob" {
			t.Errorf("%s: type %s", name, got)
		}
		if got := e.Git(t, dir, "cat-file", "-s", ids[i].String()); got != strconv.Itoa(len(contents[name])) {
			t.Errorf("%s: size %s", name, got)
		}
	}
	if got := e.Git(t, dir, "ls-tree", th.String()); got != "100644 blob "+ids[1].String()+"\ttext" {
		t.Errorf("tree: %s", got)
	}
	e.Fsck(t, dir)

	for _, size := range []int64{100, 300} { // the stream holds 200 bytes
		if _, err := s.WriteBlobFrom(bytes.NewReader(randomBytes(3, 200)), size); !errors.Is(err, ErrSizeChanged) {
			t.Errorf("size %d: err = %v, want ErrSizeChanged", size, err)
		}
	}
	entries, err := os.ReadDir(objects)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range entries {
		if strings.HasPrefix(de.Name(), "tmp_obj_") {
			t.Errorf("temporary object left: %s", de.Name())
		}
	}
}

// TestReaderReadsWhatGitStores reads every object of a repository whose objects are loose,
// packed (deltas against earlier objects of the pack included) and in an alternate, as git
// cat-file --batch-all-objects lists them, and finds a pack made after it first looked.
func TestReaderReadsWhatGitStores(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	base := e.Repo(t, map[string]string{"big.txt": strings.Repeat("line of a file that changes a little\n", 2000)})
	for i := range 5 {
		gittest.WriteFiles(t, base, map[string]string{"big.txt": strings.Repeat("line of a file that changes a little\n", 2000) + fmt.Sprint(i), fmt.Sprintf("d%d/f.txt", i): fmt.Sprint(i)})
		e.Git(t, base, "add", "-A")
		e.Git(t, base, "commit", "-q", "-m", fmt.Sprint(i))
	}
	e.Git(t, base, "gc", "-q", "--aggressive")
	idxs, _ := filepath.Glob(filepath.Join(base, ".git", "objects", "pack", "*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("packs: %v", idxs)
	}
	deltas := 0
	for _, line := range strings.Split(e.Git(t, base, "verify-pack", "-v", idxs[0]), "\n") {
		if f := strings.Fields(line); len(f) == 7 && len(f[0]) == 40 { // id type size packed offset depth base
			deltas++
		}
	}
	if deltas == 0 {
		t.Fatal("git packed no deltas")
	}
	clone := filepath.Join(t.TempDir(), "clone")
	e.Git(t, "", "clone", "-q", "--shared", base, clone) // objects in base, through info/alternates
	gittest.WriteFiles(t, clone, map[string]string{"loose.txt": "only in the clone\n"})
	e.Git(t, clone, "add", "-A")
	e.Git(t, clone, "commit", "-q", "-m", "loose")

	r := NewReader(filepath.Join(clone, ".git", "objects"))
	defer r.Close()
	check := func(dir string) int {
		n := 0
		for _, line := range strings.Split(e.Git(t, dir, "cat-file", "--batch-all-objects", "--batch-check"), "\n") {
			f := strings.Fields(line) // id type size
			h := plumbing.NewHash(f[0])
			obj, err := r.Read(h)
			if err != nil {
				t.Errorf("%s: %v", f[0], err)
				continue
			}
			if obj.Type().String() != f[1] || strconv.FormatInt(obj.Size(), 10) != f[2] || obj.Hash() != h || !r.Has(h) {
				t.Errorf("%s: read %s %d hashing to %s, git says %s %s", f[0], obj.Type(), obj.Size(), obj.Hash(), f[1], f[2])
			}
			rd, err := obj.Reader()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rd)
			if err != nil || ID(obj.Type(), data) != h {
				t.Errorf("%s: content does not hash to its id (%v)", f[0], err)
			}
			n++
		}
		return n
	}
	if n := check(base) + check(clone); n < 30 {
		t.Errorf("only %d objects read", n)
	}
	if _, err := r.Read(plumbing.NewHash(strings.Repeat("ab", 20))); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("missing object: err = %v", err)
	}

	// A pack appears after the Reader first looked (git gc in the clone).
	gittest.WriteFiles(t, clone, map[string]string{"later.txt": "packed later\n"})
	e.Git(t, clone, "add", "-A")
	e.Git(t, clone, "commit", "-q", "-m", "later")
	e.Git(t, clone, "repack", "-q", "-a", "-d", "-l")
	h := plumbing.NewHash(e.Git(t, clone, "rev-parse", "HEAD:later.txt"))
	if _, err := r.Read(h); err != nil {
		t.Errorf("object of a new pack: %v", err)
	}
}
