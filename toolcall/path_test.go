package toolcall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveBelowTheWorkspace: a path inside the workspace resolves from the workspace's
// resolved form (Place.resolve) to what resolving it from the root gives, as calls carry it
// (relative to the workspace when inside, in either spelling), whatever links it
// crosses: the workspace reached through a link, links inside it relative and absolute, to
// folders and files, out of it and back, chained, dangling, looping, and names that do not
// exist yet.
func TestResolveBelowTheWorkspace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	real := filepath.Join(root, "real")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(real, "ws", "src", "deep"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(real, "ws", "src", "main.go"), filepath.Join(outside, "secret")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := filepath.Join(root, "link-to-ws") // the workspace as the agent names it: through a link
	links := map[string]string{
		ws:                                     filepath.Join(real, "ws"),
		filepath.Join(real, "ws", "rel"):       "src",
		filepath.Join(real, "ws", "abs"):       filepath.Join(real, "ws", "src", "deep"),
		filepath.Join(real, "ws", "out"):       outside,
		filepath.Join(real, "ws", "back"):      "../ws/src",
		filepath.Join(real, "ws", "file"):      "src/main.go",
		filepath.Join(real, "ws", "chain"):     "rel",
		filepath.Join(real, "ws", "dangling"):  "gone/new.txt",
		filepath.Join(real, "ws", "loop"):      "loop",
		filepath.Join(real, "ws", "src", "up"): "..",
		filepath.Join(outside, "in"):           filepath.Join(real, "ws", "src"),
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	p := NewPlace("", ws, root)
	// As NormalizeIn carries it: a path that loops stays in the workspace's spelling it came in.
	carried := func(path string) string {
		for _, w := range []string{p.realWorkspace, ws} {
			if r, ok := strings.CutPrefix(path, w+string(filepath.Separator)); ok {
				return r
			}
		}
		return path
	}
	for _, rel := range []string{
		"", "src", "src/main.go", "src/deep", "src/new.txt", "new/dir/file", "rel", "rel/main.go",
		"rel/deep/x", "abs", "abs/x", "out", "out/secret", "out/in/main.go", "out/in/new", "back/main.go",
		"file", "file/x", "chain/main.go", "dangling", "dangling/x", "loop", "loop/x", "src/up/src/main.go",
		"src/main.go/x", "src/deep/../main.go",
	} {
		path := filepath.Clean(filepath.Join(ws, rel))
		if got, want := carried(p.resolve(path)), carried(resolve(path)); got != want {
			t.Errorf("%s: %s, want %s (as from the root)", rel, got, want)
		}
	}
}
