// Package weburl reads the URLs of the endpoints a configuration names (a
// provider's base URL, an MCP server's): scheme://[userinfo@]host[:port]
// [/path][?query][#fragment], accepted only where net/url's Parse accepts
// it, with the same scheme, host and path.
//
// It exists so that the configuration does not import net/url: net/url
// imports net/netip, which imports unique and weak, and the linker runs
// package inits in lexical order among those ready, so a package that
// needs weak initialises after almost every other package in coder.
// `coder sandbox` runs from an init that loads the configuration
// (sandbox/workspace); with net/url below it, that init came after
// SQLite's, HTML's, gob's and a hundred more. Its tests hold it to
// net/url's answers.
package weburl

import (
	"errors"
	"strconv"
	"strings"
)

// URL is the parts of a URL with a host that coder reads.
type URL struct {
	// Scheme is lower-cased, as net/url's.
	Scheme string
	// Host is host[:port], percent-escapes decoded, brackets kept around
	// an IPv6 literal: net/url's URL.Host.
	Host string
	// Path is the path, percent-escapes decoded: net/url's URL.Path.
	Path string
	// written is the URL as written, and at the end of its authority.
	written string
	at      int
}

// Parse reads s, which must have a scheme and a host (scheme://host...).
// It fails wherever net/url's Parse fails, and on URLs without a host,
// which Parse accepts.
func Parse(s string) (URL, error) {
	for i := 0; i < len(s) && s[i] != '#'; i++ { // the fragment may hold them
		if s[i] < ' ' || s[i] == 0x7f {
			return URL{}, errors.New("invalid control character in URL")
		}
	}
	scheme, rest, ok := cutScheme(s)
	if !ok || !strings.HasPrefix(rest, "//") {
		return URL{}, errors.New("not a URL with a scheme and a host (scheme://host)")
	}
	u := URL{Scheme: strings.ToLower(scheme)}
	rest = rest[2:]
	beforeFrag, frag, hasFrag := strings.Cut(rest, "#")
	if hasFrag {
		if _, err := unescape(frag, modeOther); err != nil {
			return URL{}, err
		}
	}
	// Parse's query split: a lone trailing '?' is a forced empty query.
	beforeQuery := beforeFrag
	if strings.HasSuffix(beforeFrag, "?") && strings.Count(beforeFrag, "?") == 1 {
		beforeQuery = beforeFrag[:len(beforeFrag)-1]
	} else {
		beforeQuery, _, _ = strings.Cut(beforeFrag, "?")
	}
	authority, path := beforeQuery, ""
	if i := strings.IndexByte(authority, '/'); i >= 0 {
		authority, path = authority[:i], authority[i:]
	}
	host, err := parseAuthority(u.Scheme, authority)
	if err != nil {
		return URL{}, err
	}
	if host == "" {
		return URL{}, errors.New("no host in URL")
	}
	if u.Path, err = unescape(path, modeOther); err != nil {
		return URL{}, err
	}
	u.Host = host
	u.written, u.at = s, len(s)-len(rest)+len(authority)
	return u, nil
}

// Hostname is Host without its port and an IPv6 literal's brackets.
func (u URL) Hostname() string {
	h, _ := splitHostPort(u.Host)
	return h
}

// Port is Host's port, "" when it has none.
func (u URL) Port() string {
	_, p := splitHostPort(u.Host)
	return p
}

// WithPort is the URL as written with ":port" after the host, for a
// host that has no port.
func (u URL) WithPort(port string) string {
	return u.Scheme + u.written[len(u.Scheme):u.at] + ":" + port + u.written[u.at:]
}

// cutScheme is net/url's getScheme for a URL that has one: letters first,
// then letters, digits, '+', '-' or '.', up to the first ':'.
func cutScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", "", false
			}
		case c == ':' && i > 0:
			return s[:i], s[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// parseAuthority checks [userinfo@]host[:port] and returns host[:port]
// decoded.
func parseAuthority(scheme, authority string) (string, error) {
	at := strings.LastIndexByte(authority, '@')
	host, err := parseHost(scheme, authority[at+1:])
	if err != nil || at < 0 {
		return host, err
	}
	userinfo := authority[:at]
	for i := 0; i < len(userinfo); i++ {
		if !userinfoByte(userinfo[i]) {
			return "", errors.New("invalid userinfo")
		}
	}
	if _, err := unescape(userinfo, modeOther); err != nil {
		return "", err
	}
	return host, nil
}

// userinfoByte is a byte net/url allows in userinfo: unreserved,
// sub-delims, ':', '%' and '@'; anything non-ASCII is refused too.
func userinfoByte(c byte) bool {
	return alnum(c) || strings.IndexByte("-._:~!$&'()*+,;=%@", c) >= 0
}

// parseHost checks host[:port] as net/url does for an http(s) URL, with
// net/url's strict colons (Go 1.26's default) for every scheme.
func parseHost(scheme, host string) (string, error) {
	open := strings.LastIndexByte(host, '[')
	switch {
	case open > 0:
		return "", errors.New("invalid IP-literal")
	case open == 0:
		closing := strings.LastIndexByte(host, ']')
		if closing < 0 {
			return "", errors.New("missing ']' in host")
		}
		colonPort := host[closing+1:]
		if !validOptionalPort(colonPort) {
			return "", errors.New("invalid port " + strconv.Quote(colonPort) + " after host")
		}
		literal := host[1:closing]
		var addr string
		if zone := strings.Index(literal, "%25"); zone >= 0 {
			hostPart, err := unescape(literal[:zone], modeHost)
			if err != nil {
				return "", err
			}
			zonePart, err := unescape(literal[zone:], modeZone)
			if err != nil {
				return "", err
			}
			addr = hostPart + zonePart
		} else {
			var err error
			if addr, err = unescape(literal, modeHost); err != nil {
				return "", err
			}
		}
		if !ipv6Literal(addr) {
			return "", errors.New("invalid IP-literal")
		}
		return "[" + addr + "]" + colonPort, nil
	}
	if i := strings.IndexByte(host, ':'); i >= 0 {
		if last := strings.LastIndexByte(host, ':'); last != i && scheme != "http" && scheme != "https" {
			i = last
		}
		if !validOptionalPort(host[i:]) {
			return "", errors.New("invalid port " + strconv.Quote(host[i:]) + " after host")
		}
	}
	return unescape(host, modeHost)
}

// validOptionalPort: empty, or ':' and digits.
func validOptionalPort(port string) bool {
	if port == "" {
		return true
	}
	if port[0] != ':' {
		return false
	}
	for i := 1; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// splitHostPort is net/url's: a trailing ':digits' is the port, and
// brackets come off what is left.
func splitHostPort(hostPort string) (host, port string) {
	host = hostPort
	if colon := strings.LastIndexByte(host, ':'); colon >= 0 && validOptionalPort(host[colon:]) {
		host, port = host[:colon], host[colon+1:]
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return host, port
}

type mode int

const (
	modeOther mode = iota // a path, userinfo or fragment: escapes must be well formed
	modeHost              // also: only the ASCII a host name may hold, escapes only of non-ASCII bytes (and %25)
	modeZone              // an IPv6 zone: escapes of bytes a host could hold, %25, or a space
)

// unescape decodes %XX escapes as net/url does for mode, refusing what it
// refuses.
func unescape(s string, m mode) (string, error) {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' {
			if m != modeOther && c < 0x80 && !hostByte(c) {
				return "", errors.New("invalid character " + strconv.Quote(s[i:i+1]) + " in host name")
			}
			i++
			continue
		}
		n++
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			bad := s[i:]
			if len(bad) > 3 {
				bad = bad[:3]
			}
			return "", errors.New("invalid URL escape " + strconv.Quote(bad))
		}
		v := unhex(s[i+1])<<4 | unhex(s[i+2])
		switch {
		case m == modeHost && unhex(s[i+1]) < 8 && s[i:i+3] != "%25":
			return "", errors.New("invalid URL escape " + strconv.Quote(s[i:i+3]))
		case m == modeZone && s[i:i+3] != "%25" && v != ' ' && (v >= 0x80 || !hostByte(v)):
			return "", errors.New("invalid URL escape " + strconv.Quote(s[i:i+3]))
		}
		i += 3
	}
	if n == 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s) - 2*n)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

// hostByte is an ASCII byte net/url leaves in a host: unreserved,
// sub-delims, ':', brackets, and '<', '>', '"' (which it lets through).
func hostByte(c byte) bool {
	return alnum(c) || strings.IndexByte("-._~!$&'()*+,;=:[]<>\"", c) >= 0
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
