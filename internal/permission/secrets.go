package permission

import (
	"path"
	"strings"
)

// Secret files: reading one sends credentials to the model provider, so a
// person should say yes first.

// secretBases are file names that hold credentials wherever they are.
var secretBases = set(".env", ".envrc", ".netrc", "_netrc", ".pgpass", ".git-credentials",
	".npmrc", ".pypirc", "credentials.json", "service-account.json")

// secretSuffixes are key and certificate-bundle extensions.
var secretSuffixes = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"}

// secretPaths are credential files known by their directory.
var secretPaths = []string{".aws/credentials", ".docker/config.json", ".kube/config",
	".config/gh/hosts.yml", ".ssh/config"}

// envTemplates are committed examples, not secrets.
var envTemplates = set(".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults")

// SecretPathReason returns the approval reason for reading p ("reads a
// secrets file: .env"), or "" when p does not look like a secrets file.
func SecretPathReason(p string) string {
	if isSecretPath(p) {
		return "reads a secrets file: " + p
	}
	return ""
}

func isSecretPath(p string) bool {
	slash := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	base := path.Base(slash)
	switch {
	case base == "" || base == "." || base == "/":
		return false
	case envTemplates[base]:
		return false
	case secretBases[base], strings.HasPrefix(base, ".env."):
		return true
	case isPrivateKeyName(base):
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	for _, s := range secretPaths {
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

// readers are commands whose operands are files they read (and may print).
var readers = set("cat", "tac", "less", "more", "head", "tail", "nl", "od", "xxd", "hexdump",
	"strings", "base64", "grep", "egrep", "fgrep", "rg", "ag", "awk", "sed", "cut", "sort",
	"uniq", "diff", "cmp", "source", ".", "cp", "scp", "rsync", "bat", "vim", "vi", "nvim",
	"nano", "emacs", "jq", "yq", "openssl", "gpg", "curl")

func (a *analyzer) checkSecrets(name string, ws []word) {
	if !readers[name] {
		return
	}
	for _, w := range ws[1:] {
		if !w.known {
			continue
		}
		t := w.text
		if name == "curl" { // curl -d @.env / -T .env uploads the file
			t = strings.TrimPrefix(t, "@")
		}
		if !strings.HasPrefix(t, "-") {
			a.secret(t)
		}
	}
}

func (a *analyzer) secret(p string) {
	if r := SecretPathReason(p); r != "" {
		a.reason(r)
	}
}
