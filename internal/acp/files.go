package acp

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/tools"
)

// clientFileTimeout bounds one fs/* request to the editor.
const clientFileTimeout = time.Minute

// clientFiles serves the file tools through the editor (fs/read_text_file,
// fs/write_text_file) where it offers them: the model reads the buffer the
// person sees, unsaved edits included, and the editor applies writes to
// its buffers. Files outside the workspace, and binary ones, are left to
// the disk (tools.ErrUseDisk).
type clientFiles struct {
	s            *acpSession
	read, write  bool
	workspaceDir func() string
}

func (f clientFiles) viaClient(abs string) bool {
	ws := f.workspaceDir()
	rel, err := filepath.Rel(ws, abs)
	return ws != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Open implements tools.Files.
func (f clientFiles) Open(abs string) (io.ReadCloser, error) {
	if !f.read || !f.viaClient(abs) || binaryOnDisk(abs) {
		return nil, tools.ErrUseDisk
	}
	ctx, cancel := context.WithTimeout(f.s.srv.ctx, clientFileTimeout)
	defer cancel()
	resp, err := f.s.srv.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.s.sessionID()), Path: abs})
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: abs, Err: clientError("the editor could not read it: " + errorText(err))}
	}
	return io.NopCloser(strings.NewReader(resp.Content)), nil
}

// WriteFile implements tools.Files. Text that is not UTF-8 cannot travel
// as a JSON string unchanged, so it is written to disk.
func (f clientFiles) WriteFile(abs string, data []byte, perm fs.FileMode) error {
	if !f.write || !f.viaClient(abs) || !utf8.Valid(data) {
		return tools.ErrUseDisk
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(f.s.srv.ctx, clientFileTimeout)
	defer cancel()
	_, err := f.s.srv.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.s.sessionID()), Path: abs, Content: string(data)})
	if err != nil {
		return clientError("the editor could not write it: " + errorText(err))
	}
	return nil
}

type clientError string

func (e clientError) Error() string { return string(e) }

// binaryOnDisk: a NUL byte in the file's first 8 KiB. Such files are read
// from disk, where the read tool recognises them, not as editor text.
func binaryOnDisk(abs string) bool {
	f, err := os.Open(abs)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	n, _ := io.ReadFull(f, buf)
	return bytes.IndexByte(buf[:n], 0) >= 0
}
