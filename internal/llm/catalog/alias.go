package catalog

import (
	"strings"
)

// This file resolves model aliases. Vendors serve a model under dated
// snapshot names (claude-3-opus-20240229, gpt-4o-2024-08-06,
// mistral-large-2411) and aliases that stand for one of them: "-latest"
// (claude-3-opus-latest, the newest claude-3-opus snapshot) and the bare
// undated name. An alias takes its target's limits and rules; the name
// sent to the API stays the alias.

// alias finds the entry model names on provider when it is an alias the
// catalog has no entry for: "X-latest" is X, else X's newest dated
// snapshot; an undated X is "X-latest", else X's newest dated snapshot.
// A dated name is no alias: it may stand for its undated name (variants)
// but never for another date.
func (ix *index) alias(provider, model string) (Model, bool) {
	for _, id := range []string{model, strings.ToLower(model)} {
		if base, ok := strings.CutSuffix(id, "-latest"); ok {
			if m, ok := ix.find(provider, base); ok {
				return m, true
			}
			if m, ok := ix.newest(provider, base); ok {
				return m, true
			}
			continue
		}
		if dated(provider, id) {
			continue
		}
		if m, ok := ix.find(provider, id+"-latest"); ok {
			return m, true
		}
		if m, ok := ix.newest(provider, id); ok {
			return m, true
		}
	}
	return Model{}, false
}

// dated reports whether id ends in a snapshot date.
func dated(provider, id string) bool {
	if i := strings.LastIndexByte(id, '-'); i > 0 {
		if _, ok := snapshotDate(provider, id[:i], id[i+1:]); ok {
			return true
		}
	}
	if n := len(id); n > 11 && id[n-11] == '-' {
		_, ok := snapshotDate(provider, id[:n-11], id[n-10:])
		return ok
	}
	return false
}

// newest is base's snapshot with the latest date on provider.
func (ix *index) newest(provider, base string) (Model, bool) {
	prefix := provider + " " + base + "-"
	best, bestDate := "", ""
	for line := range ix.withPrefix(prefix) {
		suffix, _, _ := strings.Cut(line[len(prefix):], " ")
		if d, ok := snapshotDate(provider, base, suffix); ok && d > bestDate {
			best, bestDate = base+"-"+suffix, d
		}
	}
	if best == "" {
		return Model{}, false
	}
	return ix.find(provider, best)
}

// snapshotDate reads the date suffix of a snapshot of base as YYYYMMDD:
// 20240229 and 2024-08-06 from every vendor, and Mistral's year-month
// versions (2411 is 24.11) from Mistral's models only; elsewhere four
// digits are a month and day (gpt-4-0613, grok-4-0709) with no year to
// order them by.
func snapshotDate(provider, base, suffix string) (string, bool) {
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	switch {
	case len(suffix) == 8 && digits(suffix):
		return suffix, true
	case len(suffix) == 10 && suffix[4] == '-' && suffix[7] == '-' &&
		digits(suffix[:4]) && digits(suffix[5:7]) && digits(suffix[8:]):
		return suffix[:4] + suffix[5:7] + suffix[8:], true
	case len(suffix) == 4 && digits(suffix) && suffix[2:] >= "01" && suffix[2:] <= "12" && mistralModel(provider, base):
		return "20" + suffix + "00", true
	}
	return "", false
}

func mistralModel(provider, base string) bool {
	if vendor, rest, ok := strings.Cut(base, "/"); ok {
		return vendorProviders[strings.ToLower(vendor)] == "mistral" || vendorOf(rest) == "mistral"
	}
	return provider == "mistral" || vendorOf(base) == "mistral"
}
