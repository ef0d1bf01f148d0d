package tools

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const fetchPage = `<!doctype html><html><head><title>T &amp; more</title>
<style>body{color:red}</style><script>alert("x")</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<h1>Release notes</h1>
<p>Version <b>2.0</b> adds <a href="docs/tables.html">tables</a>.</p>
<table><tr><th>Name</th><th>Size</th></tr><tr><td>alpha</td><td>1</td></tr><tr><td>beta</td><td>22</td></tr></table>
</body></html>`

// fetchServer serves a small site for the fetch tests.
func fetchServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		if ua := r.Header.Get("User-Agent"); !strings.Contains(ua, "coder") {
			http.Error(w, "no user agent", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, fetchPage)
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a": [1, 2]}`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("0123456789", 1000))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n...."))
	})
	mux.HandleFunc("/untyped", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no sniffing by net/http
		w.Write([]byte("%PDF-1.7 binary"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	// /hop/N redirects to /hop/N-1; /hop/0 redirects to the page.
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			http.Redirect(w, r, "/page", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// fetch fetches url; the test servers are on loopback, which opts must
// allow unless the test is about refusing it.
func fetch(t *testing.T, opts FetchOptions, url string) Result {
	t.Helper()
	tool, err := NewFetchTool(opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := execRaw(context.Background(), tool, `{"url":"`+url+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var loopbackOK = []string{"127.0.0.1"}

func TestFetchHTMLToMarkdown(t *testing.T) {
	t.Parallel()
	srv := fetchServer(t)
	res := fetch(t, FetchOptions{AllowHosts: loopbackOK}, srv.URL+"/hop/2")
	if !res.OK {
		t.Fatalf("fetch = %+v", res)
	}
	header, body, _ := strings.Cut(res.Content, "\n\n")
	wantHeader := fmt.Sprintf("URL: %s/page (200 OK, text/html, %d bytes)\nTitle: T & more", srv.URL, len(fetchPage))
	if header != wantHeader {
		t.Errorf("header = %q, want %q", header, wantHeader)
	}
	for _, want := range []string{
		"# Release notes",
		"Version **2.0** adds [tables](" + srv.URL + "/docs/tables.html).",
		"| Name  | Size |",
		"| beta  | 22   |",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	for _, unwanted := range []string{"alert", "color:red", "About", "<"} {
		if strings.Contains(body, unwanted) {
			t.Errorf("body contains %q:\n%s", unwanted, body)
		}
	}
}

func TestFetchText(t *testing.T) {
	t.Parallel()
	srv := fetchServer(t)
	res := fetch(t, FetchOptions{AllowHosts: loopbackOK}, srv.URL+"/data.json")
	if !res.OK || !strings.HasSuffix(res.Content, "application/json, 13 bytes)\n\n{\"a\": [1, 2]}\n") {
		t.Errorf("json = %+v", res)
	}
	res = fetch(t, FetchOptions{AllowHosts: loopbackOK}, srv.URL+"/missing")
	if res.OK || !strings.Contains(res.Content, "404 Not Found") || !strings.Contains(res.Content, "no such page") {
		t.Errorf("404 = %+v", res)
	}
}

func TestFetchSizeCap(t *testing.T) {
	t.Parallel()
	srv := fetchServer(t)
	res := fetch(t, FetchOptions{AllowHosts: loopbackOK, MaxBytes: 25}, srv.URL+"/big")
	want := "(200 OK, text/plain, first 25 bytes, truncated)\n\n0123456789012345678901234\n\n[content truncated at 25 bytes]\n"
	if !res.OK || !strings.HasSuffix(res.Content, want) {
		t.Errorf("capped = %q", res.Content)
	}
}

func TestFetchTimeout(t *testing.T) {
	t.Parallel()
	srv := fetchServer(t)
	start := time.Now()
	res := fetch(t, FetchOptions{AllowHosts: loopbackOK, Timeout: 200 * time.Millisecond}, srv.URL+"/slow")
	if res.OK || !strings.Contains(res.Content, "timed out after 200ms") {
		t.Errorf("slow = %+v", res)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("timeout took %v", d)
	}
}

func TestFetchRedirectCap(t *testing.T) {
	t.Parallel()
	srv := fetchServer(t)
	if res := fetch(t, FetchOptions{AllowHosts: loopbackOK, MaxRedirects: 3}, srv.URL+"/hop/2"); !res.OK {
		t.Errorf("3 redirects with a cap of 3 = %+v", res)
	}
	res := fetch(t, FetchOptions{AllowHosts: loopbackOK, MaxRedirects: 3}, srv.URL+"/hop/3")
	if res.OK || !strings.Contains(res.Content, "too many redirects (more than 3)") {
		t.Errorf("4 redirects = %+v", res)
	}
}

func TestFetchRefuses(t *testing.T) {
	t.Parallel()
	srv := fetchServer(t)
	cases := map[string]string{
		srv.URL + "/image.png":  "unsupported content type image/png",
		srv.URL + "/untyped":    "unsupported content type application/pdf (detected",
		"file:///etc/passwd":    `only http and https URLs can be fetched, not \"file:\"`,
		"ftp://example.com/x":   `not \"ftp:\"`,
		"example.com/no-scheme": `not \":\"`,
		"http:///nohost":        "the URL has no host",
	}
	for url, want := range cases {
		res := fetch(t, FetchOptions{AllowHosts: loopbackOK}, url)
		if res.OK || !strings.Contains(res.Content, want) {
			t.Errorf("%s = %s, want %q", url, res.Content, want)
		}
	}
	if tool, _ := NewFetchTool(FetchOptions{}); !readOnly(tool.Facts().Kind) {
		t.Error("fetch is not read-only")
	}
}

// fetch does not reach the machine's own or private services unless
// allowed: loopback in every spelling, metadata, redirects into them.
func TestFetchRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	srv := fetchServer(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, u := range []string{
		srv.URL + "/page",
		"http://localhost:" + port + "/page",
		"http://[::ffff:127.0.0.1]:" + port + "/page",
		"http://[::1]:" + port + "/page",
		"http://169.254.169.254/latest/meta-data/",
		"http://10.1.2.3/",
		"http://0.0.0.0:" + port + "/page",
	} {
		res := fetch(t, FetchOptions{Timeout: 5 * time.Second}, u)
		if res.OK || !strings.Contains(res.Content, "refused") || !strings.Contains(res.Content, "fetch.allow_hosts") {
			t.Errorf("%s was not refused: %s", u, res.Content)
		}
	}
	// Positive controls: an allowed host, port or range is reached.
	for _, allow := range [][]string{{"127.0.0.1"}, {"127.0.0.1:" + port}, {"127.0.0.0/8"}, {"localhost"}} {
		u := srv.URL + "/page"
		if allow[0] == "localhost" {
			u = "http://localhost:" + port + "/page"
		}
		if res := fetch(t, FetchOptions{AllowHosts: allow}, u); !res.OK {
			t.Errorf("allowed %v: %s", allow, res.Content)
		}
	}
	if _, err := NewFetchTool(FetchOptions{AllowHosts: []string{"a b"}}); err == nil {
		t.Error("a malformed allow_hosts entry was accepted")
	}
}

// A public-looking host that redirects into loopback is stopped at the
// redirect: every connection is checked.
func TestFetchRedirectIntoLoopbackRefused(t *testing.T) {
	t.Parallel()
	inner := fetchServer(t)
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(inner.URL, "127.0.0.1", "localhost", 1)+"/page", http.StatusFound)
	}))
	t.Cleanup(outer.Close)
	port := outer.URL[strings.LastIndex(outer.URL, ":")+1:]
	res := fetch(t, FetchOptions{AllowHosts: []string{"127.0.0.1:" + port}}, outer.URL+"/")
	if res.OK || !strings.Contains(res.Content, "refused") {
		t.Fatalf("the redirect into loopback was followed: %s", res.Content)
	}
}
