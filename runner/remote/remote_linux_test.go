//go:build linux

package remote

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/autoagent/agent-hooks/gitops"
)

// TestRemoteSessionsFromAPathListTheRefsOnce: from a remote on this machine (a path, served in
// process) too, listing the sessions and reading the records shown reads the remote's refs
// once. The kernel counts it: every listing of the refs opens their folder, and inotify
// reports each open.
func TestRemoteSessionsFromAPathListTheRefsOnce(t *testing.T) {
	t.Parallel()
	rh := newRemoteHarness(t)
	ctx := context.Background()
	ids := rh.pushSessions(3)
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	dir := filepath.Join(rh.bare, filepath.FromSlash(gitops.SessionRefPrefix))
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	// listings is how many times the folder was opened since the last call.
	listings := func() int {
		n := 0
		buf := make([]byte, 64<<10)
		for {
			got, err := unix.Read(fd, buf)
			if errors.Is(err, unix.EAGAIN) {
				return n
			}
			if err != nil {
				t.Fatal(err)
			}
			for b := buf[:got]; len(b) >= unix.SizeofInotifyEvent; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
				if ev.Mask&unix.IN_ISDIR != 0 && ev.Len == 0 {
					n++ // the watched folder itself
				}
				b = b[unix.SizeofInotifyEvent+int(ev.Len):]
			}
		}
	}
	for _, cache := range []string{"cold", "warm"} {
		list, problems, err := List(ctx, rh.r, Request{Remote: "local"}, 2)
		if err != nil || len(problems) > 0 || len(list) != 2 || list[0].ID != ids[2] || list[1].ID != ids[1] {
			t.Fatalf("%s cache: listed %+v, %v %v", cache, list, err, problems)
		}
		if n := listings(); n != 1 {
			t.Errorf("%s cache: the remote's refs were listed %d times, want once", cache, n)
		}
	}
	if rs, err := Lookup(ctx, rh.r, ids[0], Request{Remote: "local"}); err != nil || rs.ID != ids[0] {
		t.Fatalf("LookupRemote(%s) = %+v, %v", ids[0], rs, err)
	}
	if n := listings(); n != 1 {
		t.Errorf("reading one session, the remote's refs were listed %d times, want once", n)
	}
}
