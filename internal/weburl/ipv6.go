package weburl

import "strings"

// ipv6Literal reports whether s is what an IPv6 literal in brackets may
// hold for net/url: an IPv6 address in text (RFC 4291 §2.2: eight groups
// of up to four hex digits, one "::" for one or more groups of zeros, the
// last two groups optionally as a dotted IPv4 address), then optionally
// '%' and a non-empty zone. As net/netip's ParseAddr reads it: a '.' or
// '%' before the first ':' makes it something else.
func ipv6Literal(s string) bool {
	if i := strings.IndexAny(s, ".:%"); i < 0 || s[i] != ':' {
		return false
	}
	if i := strings.IndexByte(s, '%'); i >= 0 {
		if i == len(s)-1 {
			return false
		}
		s = s[:i]
	}
	n, ellipsis := 0, false // bytes of the address read; "::" seen
	if strings.HasPrefix(s, "::") {
		ellipsis, s = true, s[2:]
		if s == "" {
			return true
		}
	}
	for n < 16 {
		digits := 0
		for digits < len(s) && isHex(s[digits]) {
			digits++
		}
		if digits == 0 || digits > 4 {
			return false
		}
		if digits < len(s) && s[digits] == '.' {
			// The last 32 bits as dotted IPv4: in place of the last two
			// groups, or anywhere a "::" leaves room for.
			if !ellipsis && n != 12 || n+4 > 16 || !dottedIPv4(s) {
				return false
			}
			n, s = n+4, ""
			break
		}
		n += 2
		s = s[digits:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return false
		}
		s = s[1:]
		if s[0] == ':' {
			if ellipsis {
				return false
			}
			ellipsis, s = true, s[1:]
			if s == "" {
				break
			}
		}
	}
	if s != "" {
		return false
	}
	if n < 16 {
		return ellipsis
	}
	return !ellipsis // "::" stands for at least one group
}

// dottedIPv4 is four decimal fields 0-255 without leading zeros.
func dottedIPv4(s string) bool {
	fields := strings.Split(s, ".")
	if len(fields) != 4 {
		return false
	}
	for _, f := range fields {
		if f == "" || len(f) > 3 || len(f) > 1 && f[0] == '0' {
			return false
		}
		v := 0
		for i := 0; i < len(f); i++ {
			if f[i] < '0' || f[i] > '9' {
				return false
			}
			v = v*10 + int(f[i]-'0')
		}
		if v > 255 {
			return false
		}
	}
	return true
}
