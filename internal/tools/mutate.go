package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// fileGuard is what the mutating tools (write, edit, patch) share: the
// session's read tracker and the undo hook.
type fileGuard struct {
	ws           *Workspace
	tracker      *ReadTracker
	beforeChange func(abs, read string, fi fs.FileInfo) error
	// dry: compute the change and its diff, write nothing (a preview).
	dry bool
	// files reads and writes the content.
	files Files
}

// check refuses to change an existing file the model has not read, or one
// that changed on disk since.
func (g fileGuard) check(tg target, current string) *Result {
	if err := g.tracker.Check(tg.Abs, tg.Rel, current); err != nil {
		r := Failure("%v", err)
		return &r
	}
	return nil
}

// notify calls the BeforeChange hook once per path, after validation and
// before anything is written, with what the call read of it (undo records
// a file still as read from that, without reading it again); an error
// aborts the whole call.
func (g fileGuard) notify(tgs []target, reads []fileRead) *Result {
	if g.beforeChange == nil {
		return nil
	}
	for i, tg := range tgs {
		if err := g.beforeChange(tg.Abs, reads[i].text, reads[i].disk); err != nil {
			r := Failure("cannot record %s for undo, nothing was changed: %v", tg.Rel, err)
			return &r
		}
	}
	return nil
}

// commit writes ch atomically (after the BeforeChange hook), notes the new
// state as seen, and returns the Result with its diff; read is what the
// call read of the file, ch.before its text.
func (g fileGuard) commit(tg target, read fileRead, ch *change) Result {
	if len(ch.after) > MaxFileBytes {
		r, _ := tooLargeFailure(tg.Rel, &tooLargeError{size: int64(len(ch.after)), max: MaxFileBytes})
		return r
	}
	if g.dry {
		return Result{OK: true, Diff: ch.diff(tg.Rel).Text}
	}
	if fail := g.notify([]target{tg}, []fileRead{read}); fail != nil {
		return *fail
	}
	if err := g.writeText(tg, ch.after, newFileMode); err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return fileFailure(tg.Rel, err)
		}
		return Failure("cannot write %s: %v", tg.Rel, bareError(err))
	}
	g.tracker.RecordText(tg.Abs, ch.after)
	d := ch.diff(tg.Rel)
	return Result{
		OK:      true,
		Content: ch.describe(d.Added, d.Removed),
		Summary: fmt.Sprintf("+%d -%d", d.Added, d.Removed),
		Diff:    d.Text,
		Changed: []string{tg.Rel},
	}
}

// readExisting returns the current content of a file a tool is about to
// change; existed is false when it does not exist yet. A file larger than
// MaxFileBytes is refused from its size, before it is read.
func (g fileGuard) readExisting(tg target) (read fileRead, existed bool, fail *Result) {
	fi, err := g.ws.stat(tg)
	if errors.Is(err, os.ErrNotExist) {
		return fileRead{}, false, nil
	}
	if err == nil && fi.IsDir() {
		r := Failure("%s is a directory", tg.Rel)
		return fileRead{}, false, &r
	}
	if err == nil && !fi.Mode().IsRegular() {
		r := Failure("%s is not a regular file", tg.Rel)
		return fileRead{}, false, &r
	}
	if err == nil && fi.Size() > MaxFileBytes {
		err = &tooLargeError{size: fi.Size(), max: MaxFileBytes}
	} else if err == nil {
		read, err = g.read(tg)
	}
	if r, big := tooLargeFailure(tg.Rel, err); big {
		return fileRead{}, false, &r
	}
	if err != nil {
		r := fileFailure(tg.Rel, err)
		return fileRead{}, false, &r
	}
	return read, true, nil
}

// refuseBinary refuses to edit a file holding NUL bytes: matching text in
// it means nothing and a rewrite could corrupt it.
func refuseBinary(rel, content, tool string) *Result {
	if !strings.Contains(content, "\x00") {
		return nil
	}
	r := Failure("%s looks like a binary file (it holds NUL bytes); %s changes text files only", rel, tool)
	return &r
}

// previewOf runs a mutating tool's call with the guard dry: the diff it
// would make, nothing written.
func previewOf(res Result) (string, error) {
	if !res.OK {
		return "", errors.New(failureText(res))
	}
	return res.Diff, nil
}
