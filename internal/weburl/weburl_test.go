package weburl

import (
	"math/rand/v2"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// seeds are URLs of every shape the configuration meets, and the ways
// they go wrong.
var seeds = []string{
	"https://api.openai.com/v1", "http://localhost:11434", "http://localhost:11434/v1/",
	"HTTPS://API.DeepSeek.com/anthropic", "https://generativelanguage.googleapis.com/v1beta/openai",
	"http://127.0.0.1:8080", "http://[::1]:8080/v1", "http://[::1]", "http://[fe80::1%25eth0]:80/",
	"http://[fe80::1%25en%200]/", "http://[::ffff:192.168.0.1]/", "http://[1:2:3:4:5:6:7:8]",
	"http://[1:2:3:4:5:6:7::]", "http://[1.2.3.4]/", "http://[::1", "http://x[::1]/",
	"http://user:pa%20ss@host:1/p", "http://us er@host/", "http://u@s@host/", "https://host:port/",
	"https://host:/", "http://a:1:2/", "mongodb://a:1,b:2/db", "http://ho st/", "http://h%41st/",
	"http://h%c3%bcst/", "http://hüst/", "http://host/a%zzb", "http://host/a b?c d#e f",
	"http://host/%2F/x", "http://host?q=1", "http://host/p?", "http://host/p??", "http://host#frag%",
	"http://host#f%41", "http://host/\x7f", "http://host/\n", "ftp://files.example.com/x",
	"http:/host/x", "http:host", "http://", "http:///x", "://host", "1http://host", "h+t.t-p://host/",
	"http://<host>/", "http://\"q\"/", "http://a{b}/", "http://a|b/", "http://a\\b/",
	"http://[::1]:80x/", "http://[::1]x/", "http://[::1%25]/", "http://[::1%25%41]/", "http://[::1%25%00]/",
	"http://[%3a%3a1]/", "http://[::1%zz]/", "http://@host/", "http://:80/", "http://host:80:90/",
	"http://a@b@c/", "http://[::]/", "http://[::1.2.3.4]/", "http://[1::2::3]/", "http://[12345::]/",
	"http://[::01.2.3.4]/", "http://[1:2:3:4:5:6:1.2.3.4]/", "http://[1:2:3:4:5:6:7:1.2.3.4]/",
	"http://[1:2:3:4:5:6:7:8:9]/", "http://[:1]/", "http://[1:]/", "http://[1:2:3:4:5:6:7:8::]/",
}

// TestParseAgreesWithNetURL: where Parse accepts, net/url accepts with the
// same scheme, host, path, hostname and port; where net/url finds a host
// after "scheme://", Parse accepts. Over the seeds and many variations of
// them (bytes replaced, inserted, removed), from a fixed seed.
func TestParseAgreesWithNetURL(t *testing.T) {
	for _, s := range variations(seeds, 40000) {
		checkAgainstNetURL(t, s)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(checkAgainstNetURL)
}

func checkAgainstNetURL(t *testing.T, s string) {
	t.Helper()
	got, err := Parse(s)
	want, wantErr := url.Parse(s)
	if err == nil {
		switch {
		case wantErr != nil:
			t.Fatalf("Parse(%q) accepted what net/url refuses: %v", s, wantErr)
		case got.Scheme != want.Scheme || got.Host != want.Host || got.Path != want.Path:
			t.Fatalf("Parse(%q) = %q %q %q, net/url %q %q %q", s, got.Scheme, got.Host, got.Path, want.Scheme, want.Host, want.Path)
		case got.Hostname() != want.Hostname() || got.Port() != want.Port():
			t.Fatalf("Parse(%q): hostname %q port %q, net/url %q %q", s, got.Hostname(), got.Port(), want.Hostname(), want.Port())
		}
		return
	}
	if wantErr == nil && want.Host != "" && want.Opaque == "" && strings.HasPrefix(strings.ToLower(s), want.Scheme+"://") {
		t.Fatalf("Parse(%q) refused what net/url reads as host %q: %v", s, want.Host, err)
	}
}

// TestIPv6LiteralAgreesWithNetip: ipv6Literal is netip.ParseAddr's IPv6
// (an IPv4 address is no IP-literal).
func TestIPv6LiteralAgreesWithNetip(t *testing.T) {
	addrs := []string{"::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
		"1::8", "fe80::1%eth0", "fe80::1%", "::ffff:1.2.3.4", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4",
		"1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5::1.2.3.4", "1.2.3.4", "1:2:3:4:5:6:7:8:9", "1::2::3",
		"12345::", "::01.2.3.4", "::1.2.3.256", "::1.2.3", ":1", "1:", ":::", "1:2:3:4:5:6:7:8::",
		"%eth0", "g::", "ABCD:ef01::", "::1.2.3.4%z", "0:0:0:0:0:0:0:0", "1:2:3:4:5:6:7:8%x"}
	for _, s := range variations(addrs, 40000) {
		a, err := netip.ParseAddr(s)
		want := err == nil && !a.Is4()
		if got := ipv6Literal(s); got != want {
			t.Fatalf("ipv6Literal(%q) = %v, netip %v (%v)", s, got, want, err)
		}
	}
}

// TestWithPort: the URL net/url writes back with the port added to Host.
func TestWithPort(t *testing.T) {
	for _, s := range []string{"http://localhost", "HTTP://host/path?q#f", "http://[::1]", "http://u:p@host/x", "http://host?x"} {
		u, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := url.Parse(s)
		want.Host += ":11434"
		if got := u.WithPort("11434"); got != want.String() {
			t.Errorf("WithPort of %q = %q, net/url writes %q", s, got, want.String())
		}
	}
}

// variations are the seeds and n strings made from them by replacing,
// inserting or removing a byte or two, drawn from what URLs are made of.
func variations(seeds []string, n int) []string {
	const alphabet = ":/?#[]@%!$&'()*+,;=-._~ \"<>\\^`{|}0123456789abcdefABCDEFxyz\x00\x7f\xc3\xbc"
	r := rand.New(rand.NewPCG(1, 2))
	out := append([]string(nil), seeds...)
	for range n {
		b := []byte(seeds[r.IntN(len(seeds))])
		for range 1 + r.IntN(2) {
			c := alphabet[r.IntN(len(alphabet))]
			i := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0:
				if i < len(b) {
					b[i] = c
				}
			case 1:
				b = append(b[:i], append([]byte{c}, b[i:]...)...)
			default:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			}
		}
		out = append(out, string(b))
	}
	return out
}

func FuzzIPv6Literal(f *testing.F) {
	for _, s := range []string{"::1", "fe80::1%eth0", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := netip.ParseAddr(s)
		if want := err == nil && !a.Is4(); ipv6Literal(s) != want {
			t.Fatalf("ipv6Literal(%q) = %v, netip %v (%v)", s, !want, want, err)
		}
	})
}
