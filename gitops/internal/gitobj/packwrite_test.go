package gitobj

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
)

func zlibOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestInstalledPackIsGits: a pack written by PackFile is one git reads (verify-pack, fsck,
// cat-file), and its index is byte for byte the one git index-pack makes of the same pack.
func TestInstalledPackIsGits(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	repo := t.TempDir()
	e.Git(t, repo, "init", "-q", "--bare")
	objects := filepath.Join(repo, "objects")
	var ids []plumbing.Hash
	pf, err := CreatePack(objects, uint32(len(contents)))
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range contents {
		id := ID(plumbing.BlobObject, data)
		ids = append(ids, id)
		if err := pf.Add(id, plumbing.BlobObject, int64(len(data)), zlibOf(t, data)); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := pf.Install()
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(objects, "pack", "pack-"+sum.String())
	des, _ := os.ReadDir(filepath.Join(objects, "pack"))
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	if want := []string{"pack-" + sum.String() + ".idx", "pack-" + sum.String() + ".pack"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("objects/pack holds %v, want %v (no temporary file left)", names, want)
	}
	for _, ext := range []string{".pack", ".idx"} {
		if fi, err := os.Stat(base + ext); err != nil || fi.Mode().Perm()&0o222 != 0 {
			t.Errorf("%s: %v, %v; want a read-only file as git writes it", ext, fi.Mode(), err)
		}
	}
	out := e.Git(t, repo, "verify-pack", "-v", base+".idx")
	for name, data := range contents {
		id := ID(plumbing.BlobObject, data).String()
		if !strings.Contains(out, id+" blob") {
			t.Errorf("verify-pack does not list %s (%s):\n%s", name, id, out)
		}
		if got := e.Git(t, repo, "cat-file", "-s", id); got != strconv.Itoa(len(data)) {
			t.Errorf("%s: cat-file -s = %s, want %d", name, got, len(data))
		}
	}
	e.Git(t, repo, "fsck", "--strict")
	theirs := filepath.Join(t.TempDir(), "git.idx")
	e.Git(t, repo, "index-pack", "-o", theirs, base+".pack")
	a, _ := os.ReadFile(base + ".idx")
	b, _ := os.ReadFile(theirs)
	if !bytes.Equal(a, b) {
		t.Errorf("our index (%d bytes) differs from git index-pack's (%d bytes)", len(a), len(b))
	}
	// Our reader finds every object through the index.
	r := NewReader(objects)
	defer r.Close()
	for _, id := range ids {
		if !r.Has(id) {
			t.Errorf("Reader does not find %s", id)
		}
	}
}

// TestPackIndexLargeOffsets: offsets past 2^31 go to the 64-bit table, in the order of the ids
// they belong to, as git's index-pack writes them (a pack that large is not made in a test).
func TestPackIndexLargeOffsets(t *testing.T) {
	t.Parallel()
	entries := []packEntry{
		{id: plumbing.NewHash("ff00000000000000000000000000000000000000"), off: 5 << 31, crc: 3},
		{id: plumbing.NewHash("0100000000000000000000000000000000000000"), off: 12, crc: 1},
		{id: plumbing.NewHash("8000000000000000000000000000000000000000"), off: 1<<31 + 7, crc: 2},
		{id: plumbing.NewHash("8000000000000000000000000000000000000001"), off: 1<<31 - 1, crc: 4},
	}
	var b bytes.Buffer
	if err := writePackIndex(&b, entries, plumbing.NewHash("1234567890123456789012345678901234567890")); err != nil {
		t.Fatal(err)
	}
	x, err := parsePackIndex(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(x.off64) != 2*8 {
		t.Errorf("64-bit offset table of %d bytes, want 2 entries", len(x.off64))
	}
	for _, e := range entries {
		off, err := x.FindOffset(e.id)
		crc, cerr := x.FindCRC32(e.id)
		if err != nil || cerr != nil || off != e.off || crc != e.crc {
			t.Errorf("%s: offset %d crc %d (%v, %v), want %d, %d", e.id, off, crc, err, cerr, e.off, e.crc)
		}
	}
	if n, _ := x.Count(); n != 4 || x.fanout(0x7f) != 1 || x.fanout(0x80) != 3 {
		t.Errorf("count %d, fanout[0x7f] %d, fanout[0x80] %d; want 4, 1, 3", n, x.fanout(0x7f), x.fanout(0x80))
	}
}
