// Package secrets recognises files that hold credentials. Reading one sends
// credentials to the model provider, so a person should say yes first.
package secrets

import (
	"path"
	"strings"
)

// bases are file names that hold credentials wherever they are.
var bases = set(".env", ".envrc", ".netrc", "_netrc", ".pgpass", ".git-credentials",
	".npmrc", ".pypirc", "credentials.json", "service-account.json")

// suffixes are key and certificate-bundle extensions.
var suffixes = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"}

// knownPaths are credential files known by their directory.
var knownPaths = []string{".aws/credentials", ".docker/config.json", ".kube/config",
	".config/gh/hosts.yml", ".ssh/config"}

// envTemplates are committed examples, not secrets.
var envTemplates = set(".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults")

// PathReason returns the approval reason for reading p ("reads a secrets
// file: .env"), or "" when p does not look like a secrets file.
func PathReason(p string) string {
	if IsPath(p) {
		return "reads a secrets file: " + p
	}
	return ""
}

// IsPath reports whether p names a file that usually holds credentials.
func IsPath(p string) bool {
	slash := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	base := path.Base(slash)
	switch {
	case base == "" || base == "." || base == "/":
		return false
	case envTemplates[base]:
		return false
	case bases[base], strings.HasPrefix(base, ".env."):
		return true
	case isPrivateKeyName(base):
		return true
	}
	for _, s := range suffixes {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	for _, s := range knownPaths {
		if slash == s || strings.HasSuffix(slash, "/"+s) {
			return true
		}
	}
	return false
}

// isPrivateKeyName: id_rsa, id_ed25519_work, … but not their .pub halves.
func isPrivateKeyName(base string) bool {
	if strings.HasSuffix(base, ".pub") {
		return false
	}
	for _, k := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(base, k) {
			return true
		}
	}
	return false
}

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}
