package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	stdhtml "html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/textcut"
)

//go:embed description/fetch.md
var fetchDescription string

// Fallbacks for zero FetchOptions fields.
const (
	fetchMaxBytes     = 2 << 20
	fetchTimeout      = 30 * time.Second
	fetchMaxRedirects = 5
	fetchUserAgent    = "Mozilla/5.0 (compatible; coder-fetch/1.0)"
	fetchAccept       = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5"
)

// FetchOptions configure the fetch tool. Zero fields take the defaults.
type FetchOptions struct {
	// Client sends the requests; nil means a client with the default
	// transport (which honours HTTP(S)_PROXY). Its CheckRedirect is replaced.
	Client *http.Client
	// MaxBytes caps the response body read (default 2 MiB).
	MaxBytes int64
	// Timeout bounds the whole fetch, body included (default 30s).
	Timeout time.Duration
	// MaxRedirects bounds the redirects followed (default 5).
	MaxRedirects int
	// AllowHosts are hosts, host:port pairs and CIDRs fetch may reach even
	// though they are loopback, private, link-local or metadata addresses.
	AllowHosts []string
}

var errTooManyRedirects = errors.New("too many redirects")

type fetchTool struct {
	client   *http.Client
	maxBytes int64
	timeout  time.Duration
}

type fetchArgs struct {
	URL string `json:"url"`
	u   *url.URL
}

// NewFetchTool returns the fetch tool. It is read-only; whether the network
// may be used at all is the permission policy's decision, not the tool's,
// but where it may connect is the tool's (see fetchGuard). A Client given in
// opts is used as it is (tests).
func NewFetchTool(opts FetchOptions) (Tool, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = fetchMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = fetchTimeout
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = fetchMaxRedirects
	}
	guard, err := newFetchGuard(opts.AllowHosts)
	if err != nil {
		return nil, err
	}
	c := &http.Client{Transport: guard.transport()}
	if opts.Client != nil {
		cp := *opts.Client
		c = &cp
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > opts.MaxRedirects {
			return fmt.Errorf("%w (more than %d)", errTooManyRedirects, opts.MaxRedirects)
		}
		return checkFetchURL(req.URL)
	}
	return fetchTool{client: c, maxBytes: opts.MaxBytes, timeout: opts.Timeout}, nil
}

func (fetchTool) Name() string        { return Fetch }
func (fetchTool) Description() string { return fetchDescription }
func (fetchTool) Facts() Facts {
	return Facts{Kind: chat.ToolFetch, Effect: EffectOpen, Plan: true, General: true, Claude: []string{"WebFetch"}}
}
func (fetchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"url":{"type":"string","description":"Absolute http:// or https:// URL"}},` +
		`"required":["url"],"additionalProperties":false}`)
}

// Prepare checks the URL: a malformed one is an argument problem.
func (fetchTool) Prepare(c *Call) error {
	a, err := decodeArgs[fetchArgs](c)
	if err != nil {
		return err
	}
	u, err := url.Parse(strings.TrimSpace(a.URL))
	if err == nil {
		err = checkFetchURL(u)
	}
	if err != nil {
		return fmt.Errorf("fetch %q: %v", a.URL, err)
	}
	a.u = u
	// "always" remembers the host: a person approves a site, not a page.
	c.Subject, c.Summary = strings.ToLower(u.Hostname()), u.String()
	return nil
}

func checkFetchURL(u *url.URL) error {
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return fmt.Errorf("only http and https URLs can be fetched, not %q", u.Scheme+":")
	}
	if u.Host == "" {
		return errors.New("the URL has no host")
	}
	return nil
}

func (t fetchTool) Run(ctx context.Context, c *Call) (Result, error) {
	u := c.Args.(*fetchArgs).u
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	page, err := t.get(ctx, u.String())
	if err != nil {
		return t.failure(ctx, u.String(), err), nil
	}
	return page.result(), nil
}

// failure words a transport error for the model.
func (t fetchTool) failure(ctx context.Context, u string, err error) Result {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return Failure("fetch %s: timed out after %v", u, t.timeout)
	case ctx.Err() != nil:
		return Failure("fetch %s: cancelled", u)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is already in our message
	}
	return Failure("fetch %s: %v", u, err)
}

// fetched is one response, read and converted.
type fetched struct {
	url       string // after redirects
	status    int
	mediaType string
	size      int // body bytes read
	truncated bool
	title     string // of an HTML page
	text      string
}

// get sends the request and reads at most maxBytes of a text body. Binary
// types are refused from the header alone, before any body is read.
func (t fetchTool) get(ctx context.Context, u string) (*fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", fetchUserAgent)
	req.Header.Set("Accept", fetchAccept)
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	mt := ""
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, _ = mime.ParseMediaType(ct)
		if mt == "" {
			mt = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
		}
		if !textual(mt) {
			return nil, fmt.Errorf("unsupported content type %s (HTTP %d): fetch reads HTML and text only", mt, resp.StatusCode)
		}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBytes+1))
	if err != nil {
		return nil, err
	}
	if mt == "" {
		// No header: trust the bytes.
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
		if !textual(mt) {
			return nil, fmt.Errorf("unsupported content type %s (detected; HTTP %d): fetch reads HTML and text only", mt, resp.StatusCode)
		}
	}
	f := &fetched{url: resp.Request.URL.String(), status: resp.StatusCode, mediaType: mt, size: len(body)}
	if int64(len(body)) > t.maxBytes {
		body, f.truncated, f.size = body[:t.maxBytes], true, int(t.maxBytes)
	}
	if mt == "text/html" || mt == "application/xhtml+xml" {
		f.title = pageTitle(body)
	}
	f.text, err = toText(mt, body, resp.Request.URL, f.truncated)
	return f, err
}

// textual reports whether the fetch tool returns this media type.
func textual(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	if !ok {
		return false
	}
	switch sub {
	case "json", "xml", "xhtml+xml", "javascript", "ecmascript", "x-javascript",
		"yaml", "x-yaml", "toml", "x-toml", "x-sh", "sql", "graphql", "ld+json", "x-ndjson", "ndjson":
		return true
	}
	return strings.HasSuffix(sub, "+json") || strings.HasSuffix(sub, "+xml")
}

// toText decodes the body; charsets other than UTF-8 are not converted, and
// invalid bytes become U+FFFD.
func toText(mt string, body []byte, page *url.URL, truncated bool) (string, error) {
	if truncated {
		body = dropPartialRune(body)
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	if mt != "text/html" && mt != "application/xhtml+xml" {
		return s, nil
	}
	return htmlToMarkdown(s, page)
}

var titleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`) })

// pageTitle finds the <title>, which the conversion drops with <head>.
func pageTitle(html []byte) string {
	m := titleRE().FindSubmatch(html[:min(len(html), 64<<10)])
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(stdhtml.UnescapeString(string(m[1]))), " ")
}

// dropPartialRune removes a UTF-8 sequence the size cap cut in two.
func dropPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// htmlToMarkdown converts a page. The base plugin already drops head,
// script, style and iframes; navigation and inline graphics go too, as
// they are noise to a model. The table plugin keeps tables as tables.
func htmlToMarkdown(html string, page *url.URL) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(table.WithSkipEmptyRows(true), table.WithHeaderPromotion(true)),
	))
	for _, tag := range []string{"nav", "svg", "template", "button", "select"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	md, err := conv.ConvertString(html, converter.WithDomain(page.String()))
	if err != nil {
		return "", fmt.Errorf("converting HTML: %w", err)
	}
	return md, nil
}

// result renders the page: a header line, then the text. An HTTP error
// status is a failure that still shows the start of the page.
func (f *fetched) result() Result {
	size := fmt.Sprintf("%d bytes", f.size)
	if f.truncated {
		size = fmt.Sprintf("first %d bytes, truncated", f.size)
	}
	status := fmt.Sprintf("%d %s", f.status, http.StatusText(f.status))
	header := fmt.Sprintf("URL: %s (%s, %s, %s)", f.url, strings.TrimSpace(status), f.mediaType, size)
	if f.title != "" {
		header += "\nTitle: " + f.title
	}
	if f.status >= 400 {
		body, cut := textcut.Runes(f.text, 2000)
		if cut {
			body += "…"
		}
		return Failure("%s\n\n%s", header, body)
	}
	content := header + "\n\n" + strings.TrimSpace(f.text) + "\n"
	if f.truncated {
		content += fmt.Sprintf("\n[content truncated at %d bytes]\n", f.size)
	}
	return Result{OK: true, Content: content, Summary: fmt.Sprintf("%s, %s, %s", status, f.mediaType, size)}
}
