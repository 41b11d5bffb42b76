package gitops

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitLargeFiles commits files above the size from which content stored as it is gets
// hashed and stored while it is read (largeBlob): new, changed, copied (the object exists
// already), and one whose attributes ask for a conversion (read whole). The tree is git add -A's,
// every object is sound, and no temporary object file is left behind.
func TestCommitLargeFiles(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	blob := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.IntN(256))
		}
		return string(b)
	}
	text := strings.Repeat("a line of text\r\n", largeBlob/16+100)
	big := blob(largeBlob + 12345)
	dir := e.newRepo(t, map[string]string{".gitattributes": "*.txt text\n", "big.bin": big, "keep.bin": blob(3 * largeBlob)})
	writeFiles(t, dir, map[string]string{
		"big.bin":       big[:100] + "changed" + big[107:],
		"copy/big.bin":  big,
		"new/huge.bin":  blob(2*largeBlob + 1),
		"exact.bin":     blob(largeBlob),
		"converted.txt": text,
	})

	ref := copyTree(t, dir)
	e.git(t, ref, "add", "-A")
	e.git(t, ref, "commit", "-q", "-m", "by git")
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "by gitops"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.git(t, dir, "rev-parse", "HEAD^{tree}"), e.git(t, ref, "rev-parse", "HEAD^{tree}"); got != want {
		t.Errorf("tree = %s, git add -A made %s:\n%s\ngit's:\n%s", got, want, e.git(t, dir, "ls-tree", "-r", "HEAD"), e.git(t, ref, "ls-tree", "-r", "HEAD"))
	}
	if got := filesString(res.Files); got != "M\tbig.bin\nA\tconverted.txt\nA\tcopy/big.bin\nA\texact.bin\nA\tnew/huge.bin" {
		t.Errorf("files:\n%s", got)
	}
	if got := e.gitStdout(t, dir, "show", "HEAD:converted.txt"); !bytes.Equal([]byte(got), []byte(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")))) {
		t.Errorf("converted.txt was not stored with LF line endings")
	}
	e.fsck(t, dir)
	e.wantClean(t, dir)
	err = filepath.WalkDir(filepath.Join(dir, ".git", "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "tmp_obj_") {
			t.Errorf("temporary object left: %s", p)
		}
		return err
	})
	must(t, err)
}
