package tools

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// fetchGuard keeps fetch off the machine's own and its network's private
// services — loopback, private ranges, link-local, cloud metadata — unless
// config allows a host (fetch.allow_hosts). It resolves the name itself
// and connects to the address it checked, so DNS cannot answer one thing
// to the check and another to the connection.
type fetchGuard struct {
	hosts    map[string]bool // "host" or "host:port", lower case
	prefixes []netip.Prefix
	dialer   net.Dialer
	resolver *net.Resolver
}

func newFetchGuard(allow []string) (*fetchGuard, error) {
	g := &fetchGuard{hosts: map[string]bool{}, resolver: net.DefaultResolver}
	for _, a := range allow {
		a = strings.ToLower(strings.TrimSpace(a))
		if p, err := netip.ParsePrefix(a); err == nil {
			g.prefixes = append(g.prefixes, p.Masked())
			continue
		}
		if a == "" || strings.ContainsAny(a, "/ ") {
			return nil, fmt.Errorf("fetch.allow_hosts: %q is not a host, host:port or CIDR", a)
		}
		g.hosts[a] = true
	}
	return g, nil
}

// blocked reports whether ip is a special-purpose address fetch must not
// reach by default, and what it is.
func blocked(ip netip.Addr) (bool, string) {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return true, "a loopback address"
	case ip.IsPrivate():
		return true, "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return true, "a link-local address (cloud metadata lives there)"
	case ip.IsUnspecified(), ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return true, "a special-purpose address"
	case ip.Is4() && (ip.As4()[0] == 100 && ip.As4()[1]&0xc0 == 64): // 100.64/10, carrier-grade NAT (and metadata on some clouds)
		return true, "a shared (carrier-grade NAT) address"
	case ip == netip.MustParseAddr("fd00:ec2::254"):
		return true, "a cloud metadata address"
	}
	return false, ""
}

func (g *fetchGuard) allowed(host, port string, ip netip.Addr) bool {
	if g.hosts[host] || g.hosts[net.JoinHostPort(host, port)] || g.hosts[ip.Unmap().String()] {
		return true
	}
	for _, p := range g.prefixes {
		if p.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

// dial resolves addr's host, refuses special addresses not allowed, and
// connects to the first acceptable address.
func (g *fetchGuard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	ips, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var refused error
	for _, ip := range ips {
		if bad, what := blocked(ip); bad && !g.allowed(host, port, ip) {
			refused = fmt.Errorf("refused: %s resolves to %s, %s; allow it with fetch.allow_hosts", host, ip, what)
			continue
		}
		conn, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		refused = err
	}
	if refused == nil {
		refused = fmt.Errorf("%s has no address", host)
	}
	return nil, refused
}

func (g *fetchGuard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{ip}, nil
	}
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	return addrs, nil
}

// transport is an HTTP transport whose every connection goes through the
// guard. Proxies are not used: a proxy would connect where the guard cannot
// see.
func (g *fetchGuard) transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = g.dial
	return t
}
