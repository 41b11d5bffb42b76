package github

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// maxCachedBody bounds what one cached response may hold; larger bodies are simply not cached.
const maxCachedBody = 8 << 20

// etagCache is a transport that revalidates GET requests with If-None-Match. GitHub answers an
// unchanged resource with 304 Not Modified, which does not count against the rate limit;
// go-github v60 would return that 304 as an error, so the cache answers it with the stored body
// (and the fresh rate-limit headers) before go-github sees it. Each page URL has its own entry.
type etagCache struct {
	base    http.RoundTripper
	mu      sync.Mutex
	entries map[string]*cacheEntry

	requests    atomic.Int64
	notModified atomic.Int64
}

// revalidatedHeader marks a response answered from the cache after a 304. Its Link header is the
// one of the first fetch: GitHub's ETag covers the body only, so a full last page that the list
// has since grown past still says there is no next page.
const revalidatedHeader = "X-Agent-Hooks-Revalidated"

type cacheEntry struct {
	etag   string
	header http.Header
	body   []byte
}

func (c *etagCache) RoundTrip(req *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	if req.Method != http.MethodGet || req.Header.Get("If-None-Match") != "" {
		return c.base.RoundTrip(req)
	}
	key := req.URL.String()
	c.mu.Lock()
	e := c.entries[key]
	c.mu.Unlock()
	if e != nil {
		req = req.Clone(req.Context())
		req.Header.Set("If-None-Match", e.etag)
	}
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && e != nil:
		c.notModified.Add(1)
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		h := e.header.Clone()
		for _, k := range []string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "X-Ratelimit-Used", "X-Ratelimit-Resource", "Date"} {
			if v := resp.Header.Values(k); len(v) > 0 {
				h[k] = v
			}
		}
		h.Set(revalidatedHeader, "1")
		return &http.Response{
			Status:        "200 OK",
			StatusCode:    http.StatusOK,
			Proto:         resp.Proto,
			ProtoMajor:    resp.ProtoMajor,
			ProtoMinor:    resp.ProtoMinor,
			Header:        h,
			Body:          io.NopCloser(bytes.NewReader(e.body)),
			ContentLength: int64(len(e.body)),
			Request:       req,
		}, nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxCachedBody+1))
		if err != nil {
			resp.Body.Close()
			return nil, err
		}
		if len(body) > maxCachedBody {
			// Too large to keep: hand on what was read and the rest still unread.
			resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
			return resp, nil
		}
		resp.Body.Close()
		c.mu.Lock()
		c.entries[key] = &cacheEntry{etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: body}
		c.mu.Unlock()
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}
