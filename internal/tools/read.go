package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/images"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/secrets"
	"github.com/coder-agent/coder/internal/textcut"
)

//go:embed description/read.md
var readDescription string

const (
	readDefaultLimit = 2000
	readMaxLineChars = 2000
	readMaxBytes     = 256 << 10
	sniffBytes       = 8 << 10
)

var imageExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true,
	".bmp": true, ".ico": true, ".tif": true, ".tiff": true, ".heic": true, ".avif": true,
}

type readTool struct {
	ws      *Workspace
	tracker *ReadTracker
	files   Files
}

// trackHashMax bounds the files read hashes whole for the edit guards;
// larger ones (which the file tools do not change) are tracked by
// modification time and size.
const trackHashMax = MaxFileBytes

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func (readTool) Name() string        { return Read }
func (readTool) Description() string { return readDescription }
func (readTool) Facts() Facts {
	return Facts{Kind: chat.ToolRead, Effect: EffectNone, Paths: true, Plan: true, Explore: true, General: true,
		Claude: []string{"Read"}}
}
func (readTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File to read"},` +
		`"offset":{"type":"integer","description":"First line, 1-based"},` +
		`"limit":{"type":"integer","description":"Number of lines (default 2000)"}},` +
		`"required":["path"]}`)
}

func (t readTool) Prepare(c *Call) error {
	a, err := decodeArgs[readArgs](c)
	if err != nil {
		return err
	}
	if err := c.addPath(t.ws, a.Path, false); err != nil {
		return err
	}
	c.Subject, c.Summary = a.Path, a.Path
	if a.Offset > 1 {
		c.Summary = fmt.Sprintf("%s from line %d", a.Path, a.Offset)
	}
	if r := secrets.PathReason(c.Paths[0].Abs); r != "" {
		c.Reasons = append(c.Reasons, r)
	}
	return nil
}

func (t readTool) Run(ctx context.Context, c *Call) (Result, error) {
	a := c.Args.(*readArgs)
	tg, fail := c.target(t.ws, 0)
	if fail != nil {
		return *fail, nil
	}
	f, err := t.ws.open(tg)
	if err != nil {
		return fileFailure(tg.Rel, err), nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileFailure(tg.Rel, err), nil
	}
	if fi.IsDir() {
		return Failure("%s is a directory; use list to see its entries", tg.Rel), nil
	}
	if !fi.Mode().IsRegular() {
		return Failure("%s is not a regular file (%s)", tg.Rel, fi.Mode().Type()), nil
	}
	var r io.Reader = f
	data, handled, err := readThrough(t.files, t.ws, tg)
	if err != nil {
		return fileFailure(tg.Rel, err), nil
	}
	if handled {
		r = bytes.NewReader(data)
	}
	// The content is hashed as it streams by, so the guards compare a later
	// edit with exactly what this call read.
	h := t.tracker.newHash()
	br := bufio.NewReaderSize(io.TeeReader(r, h), 64<<10)
	head, _ := br.Peek(sniffBytes)
	if len(head) == 0 {
		t.tracker.recordHash(tg.Abs, h, true)
		return Result{OK: true, Content: fmt.Sprintf("(%s is empty)", tg.Rel), Summary: "empty file"}, nil
	}
	if images.Sniff(head) != "" {
		return readImage(br, tg.Rel)
	}
	if msg := refuseNonText(tg.Rel, head, fi.Size()); msg != "" {
		return Failure("%s", msg), nil
	}
	res, err := readLines(ctx, br, tg.Rel, a.Offset, a.Limit)
	if err == nil && res.OK {
		hashed := fi.Size() <= trackHashMax
		if hashed {
			_, err := io.Copy(io.Discard, br)
			hashed = err == nil
		}
		t.tracker.recordHash(tg.Abs, h, hashed && ctx.Err() == nil)
	}
	return res, err
}

// refuseNonText explains why a file that starts with head is not shown.
func refuseNonText(rel string, head []byte, size int64) string {
	kind := http.DetectContentType(head)
	if imageExts[strings.ToLower(filepath.Ext(rel))] || strings.HasPrefix(kind, "image/") {
		if strings.HasPrefix(kind, "image/") || !looksText(head) {
			return fmt.Sprintf("%s is an image (%s, %d bytes) in a format not sent to models (PNG, JPEG, GIF and WebP are); convert it to read it", rel, kind, size)
		}
	}
	if !looksText(head) {
		return fmt.Sprintf("%s looks like a binary file (%s, %d bytes); read shows text files only", rel, kind, size)
	}
	return ""
}

// looksText: no NUL byte, and at most a few invalid UTF-8 sequences (a
// Latin-1 file has some; binary data has many).
func looksText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	bad := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 && len(b)-i >= utf8.UTFMax {
			bad++
		}
		i += size
	}
	return bad*10 <= len(b)
}

// noFinalNewlineMark follows the last line of a file that has no final
// newline in read's output, as in a unified diff.
const noFinalNewlineMark = `\ No newline at end of file`

// readLines writes the numbered window [offset, offset+limit) of r.
func readLines(ctx context.Context, r *bufio.Reader, rel string, offset, limit int) (Result, error) {
	if offset < 1 {
		offset = 1
	}
	if limit <= 0 {
		limit = readDefaultLimit
	}
	var out strings.Builder
	n, shown, capped, counted := 0, 0, false, true
	for {
		line, err := readLine(r, (readMaxLineChars+1)*utf8.UTFMax)
		if err != nil && line == nil {
			break
		}
		n++
		if n >= offset {
			if shown == limit || out.Len() >= readMaxBytes {
				capped = out.Len() >= readMaxBytes && shown < limit
				rest, all := countRest(ctx, r, line)
				n, counted = n+rest, all
				break
			}
			writeNumbered(&out, n, line)
			shown++
			if err != nil {
				// The last line has no line break: say so the way diffs
				// do, since edits keep it that way unless asked.
				out.WriteString(noFinalNewlineMark + "\n")
			}
		}
		if err != nil {
			break
		}
	}
	if n < offset {
		return Failure("offset %d is past the end of %s (%s)", offset, rel, plural.Of(n, "line")), nil
	}
	last := offset + shown - 1
	// A count is stated as exact only when every line was counted.
	total := strconv.Itoa(n)
	if !counted {
		total = fmt.Sprintf("at least %d (not counted past the first %d MiB)", n, countRestMax>>20)
	}
	summary := fmt.Sprintf("lines %d-%d of %s", offset, last, total)
	if shown == n && counted {
		summary = plural.Of(n, "line")
	}
	if last < n || !counted {
		reason := ""
		if capped {
			reason = fmt.Sprintf(" (output capped at %d KiB)", readMaxBytes>>10)
		}
		fmt.Fprintf(&out, "\n[showing lines %d-%d of %s%s; use offset=%d to read on]", offset, last, total, reason, last+1)
	}
	return Result{OK: true, Content: out.String(), Summary: summary}, nil
}

func writeNumbered(out *strings.Builder, n int, line []byte) {
	text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
	text, cut := textcut.Runes(textcut.Valid(text), readMaxLineChars)
	if cut {
		text += " [line cut]"
	}
	fmt.Fprintf(out, "%6d\t%s\n", n, text)
}

// readLine returns the next line with its newline, keeping at most keep
// bytes of it (the rest is read and dropped). At end of input it returns the
// last partial line, or nil and io.EOF.
func readLine(r *bufio.Reader, keep int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if room := keep - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(line) > 0:
			return line, io.EOF
		default:
			return nil, err
		}
	}
}

// countRestMax bounds what countRest scans, so a huge file does not stall
// the call.
const countRestMax = 64 << 20

// countRest counts the lines left after current (already read); all is
// false when it stopped before the end (the scan limit, or a cancelled
// call), so n is only a lower bound.
func countRest(ctx context.Context, r *bufio.Reader, current []byte) (n int, all bool) {
	scanned := 0
	endsNL := bytes.HasSuffix(current, []byte("\n"))
	buf := make([]byte, 64<<10)
	for scanned < countRestMax && ctx.Err() == nil {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte("\n"))
			endsNL = buf[k-1] == '\n'
			scanned += k
		}
		if err != nil {
			all = errors.Is(err, io.EOF)
			break
		}
	}
	if !endsNL && scanned > 0 {
		n++
	}
	return n, all
}

// fileFailure turns an error opening or reading rel into a Failure.
func fileFailure(rel string, err error) Result {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Failure("no such file or directory: %s", rel)
	case errors.Is(err, fs.ErrPermission):
		return Failure("permission denied: %s", rel)
	case errors.Is(err, syscall.ENOTDIR):
		return Failure("not a directory: a parent of %s is a file", rel)
	}
	return Failure("cannot read %s: %v", rel, bareError(err))
}

// bareError drops the absolute path an *fs.PathError repeats: messages name
// the file the way the model wrote it.
func bareError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
