package shell

import (
	"strings"

	"github.com/coder-agent/coder/internal/secrets"
)

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
	if r := secrets.PathReason(p); r != "" {
		a.reason(r)
	}
}
