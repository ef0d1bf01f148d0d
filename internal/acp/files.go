package acp

import (
	"context"
	"io"
	"io/fs"
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
// its buffers. The tools ask it only for text files inside the workspace
// (see tools.Files); what the editor does not offer is left to the disk
// (tools.ErrUseDisk).
type clientFiles struct {
	s           *acpSession
	read, write bool
}

// Open implements tools.Files.
func (f clientFiles) Open(abs string) (io.ReadCloser, error) {
	if !f.read {
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
	if !f.write || !utf8.Valid(data) {
		return tools.ErrUseDisk
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
