package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// webhookSink is the scripts' `webhook-sink DIR PORTFILE`: a webhook endpoint on 127.0.0.1 (a
// chat bot, an approval UI) that records request N as DIR/N.req ("METHOD PATH") and DIR/N.body,
// answers 200, and then calls back as DIR/callbacks says, one line per call, with Go's HTTP
// client:
//
//	METHOD KEY SUFFIX BODY…
//
// calls the URL at the request body's top-level KEY with SUFFIX appended ("-" for none) and the
// rest of the line as its body. It writes the statuses it got, one a line, to DIR/N.cb once all
// calls of request N are made.
func webhookSink() int {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: webhook-sink DIR PORTFILE")
		return 2
	}
	dir, portFile := os.Args[1], os.Args[2]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var (
		mu sync.Mutex
		n  int
	)
	client := &http.Client{Timeout: 10 * time.Second}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		name := filepath.Join(dir, fmt.Sprintf("%03d", i))
		_ = os.WriteFile(name+".body", body, 0o644)
		_ = os.WriteFile(name+".req", []byte(r.Method+" "+r.URL.RequestURI()+"\n"), 0o644)
		w.WriteHeader(http.StatusOK)
		go func() {
			var doc map[string]any
			_ = json.Unmarshal(body, &doc)
			var out strings.Builder
			if f, err := os.Open(filepath.Join(dir, "callbacks")); err == nil {
				sc := bufio.NewScanner(f)
				for sc.Scan() {
					fields := strings.SplitN(sc.Text(), " ", 4)
					if len(fields) < 3 {
						continue
					}
					target, _ := doc[fields[1]].(string)
					if fields[2] != "-" {
						target += fields[2]
					}
					cbBody := ""
					if len(fields) == 4 {
						cbBody = fields[3]
					}
					req, err := http.NewRequest(fields[0], target, strings.NewReader(cbBody))
					if err != nil {
						fmt.Fprintf(&out, "error %v\n", err)
						continue
					}
					resp, err := client.Do(req)
					if err != nil {
						fmt.Fprintf(&out, "error %v\n", err)
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					fmt.Fprintf(&out, "%d\n", resp.StatusCode)
				}
				f.Close()
			}
			_ = os.WriteFile(name+".cb.tmp", []byte(out.String()), 0o644)
			_ = os.Rename(name+".cb.tmp", name+".cb")
		}()
	})}
	if err := os.WriteFile(portFile+".tmp", []byte(fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Rename(portFile+".tmp", portFile); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = srv.Serve(ln)
	return 0
}
