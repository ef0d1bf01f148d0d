package secrets

import "testing"

func TestPathReason(t *testing.T) {
	tests := []struct {
		path   string
		secret bool
	}{
		{".env", true}, {"app/.env", true}, {".env.local", true}, {".env.production", true},
		{".env.example", false}, {"config/.env.sample", false}, {"server.pem", true},
		{"tls/server.key", true}, {"id_rsa", true}, {"/home/u/.ssh/id_ed25519", true},
		{"id_rsa.pub", false}, {".netrc", true}, {"/root/.aws/credentials", true},
		{"~/.aws/credentials", true}, {".aws/config", false}, {"main.go", false},
		{"environment.go", false}, {"", false}, {".", false}, {"keys/", false},
	}
	for _, tt := range tests {
		got := PathReason(tt.path)
		if (got != "") != tt.secret {
			t.Errorf("PathReason(%q) = %q, want secret=%v", tt.path, got, tt.secret)
		}
		if tt.secret && got != "reads a secrets file: "+tt.path {
			t.Errorf("PathReason(%q) = %q", tt.path, got)
		}
	}
}
