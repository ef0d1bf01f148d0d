package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// SaveProjectValue sets one key of the project config file (normally
// ./.coder/config.json), e.g. path ["provider","model"] for /model. Other keys
// are kept; the file and its directory are created when missing; the write is
// atomic. It refuses to write an API key, and refuses a result that Load would
// reject (an unknown key, a value of the wrong type).
func SaveProjectValue(projectFile string, path []string, value any) error {
	_, _, err := saveProjectValue(projectFile, path, value)
	return err
}

func saveProjectValue(projectFile string, path []string, value any) (before, written []byte, err error) {
	if len(path) == 0 {
		return nil, nil, errors.New("config: SaveProjectValue needs a key path")
	}
	v, err := toJSONValue(value)
	if err != nil {
		return nil, nil, fmt.Errorf("config: cannot save %s: %w", strings.Join(path, "."), err)
	}
	if slices.Contains(path, "api_key") || holdsAPIKey(v) {
		return nil, nil, fmt.Errorf("config: refusing to write an API key to %s; put it in an environment variable "+
			"and name it with provider.api_key_env", projectFile)
	}
	return updateProject(projectFile, func(root map[string]any) (bool, error) {
		return true, setPath(root, path, v)
	})
}

// AppendProjectList adds item to the list at path in the project config file
// unless it is already there, e.g. the "always" allowlist
// (["permission","command_allowlist"]). It writes only this file's list, so
// entries from the user file are not copied into the project.
func AppendProjectList(projectFile string, path []string, item string) error {
	_, _, err := appendProjectList(projectFile, path, item)
	return err
}

func appendProjectList(projectFile string, path []string, item string) (before, written []byte, err error) {
	if len(path) == 0 || slices.Contains(path, "api_key") {
		return nil, nil, errors.New("config: AppendProjectList needs a key path that is not an API key")
	}
	return updateProject(projectFile, func(root map[string]any) (bool, error) {
		old := getPath(root, path)
		cur, ok := old.([]any)
		if !ok && old != nil {
			return false, fmt.Errorf("config: %s in %s is not a list", strings.Join(path, "."), projectFile)
		}
		if slices.Contains(cur, any(item)) {
			return false, nil
		}
		return true, setPath(root, path, append(cur, item))
	})
}

// updateProject is the read-modify-write shared by the savers. It returns
// the file's content before (nil: there was none) and what it wrote (nil:
// nothing changed).
func updateProject(file string, change func(map[string]any) (bool, error)) (before, written []byte, err error) {
	data, err := readFile(file)
	if err != nil {
		return nil, nil, err
	}
	root, err := parseObject(file, data)
	if err != nil {
		return nil, nil, err
	}
	changed, err := change(root)
	if err != nil || !changed {
		return data, nil, err
	}
	c := &checker{file: file, strict: true, root: reflect.TypeFor[Config]()}
	if c.walk("", root, c.root); len(c.errs) > 0 {
		return data, nil, fmt.Errorf("not saved: %w", errors.Join(c.errs...))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "&&" and "<" in saved commands readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return data, nil, fmt.Errorf("config: %s: %w", file, err)
	}
	return data, buf.Bytes(), writeAtomic(file, buf.Bytes())
}

// ProjectWriter saves the person's choices to the project config file
// (/model, "always") and keeps its trust record current: what coder
// writes there is the person's own answer, so when the file was trusted
// before (its content confirmed, or asking for nothing that needs trust,
// or absent) its new content is recorded as trusted, and the next start
// does not ask about coder's own entry. A file that held untrusted
// widening settings stays untrusted: the write does not launder them.
type ProjectWriter struct {
	file, userDir string
}

// NewProjectWriter writes file, recording trust in userDir (the user
// config directory); a zero ProjectWriter saves nothing.
func NewProjectWriter(file, userDir string) ProjectWriter {
	return ProjectWriter{file: file, userDir: userDir}
}

// ProjectWriter is the writer of this run's project config file.
func (l *Loaded) ProjectWriter() ProjectWriter { return NewProjectWriter(l.ProjectFile, l.UserDir) }

// Path is the project config file ("" for a zero writer).
func (w ProjectWriter) Path() string { return w.file }

// SaveValue is SaveProjectValue on the writer's file.
func (w ProjectWriter) SaveValue(path []string, value any) error {
	return w.record(saveProjectValue(w.file, path, value))
}

// AppendList is AppendProjectList on the writer's file.
func (w ProjectWriter) AppendList(path []string, item string) error {
	return w.record(appendProjectList(w.file, path, item))
}

// record trusts written, the file's new content, when before — the very
// bytes the save read and changed — was trusted. A change by anyone else
// after the save makes the file's content differ from the record, so it
// needs the person again: never the other way round.
func (w ProjectWriter) record(before, written []byte, err error) error {
	if err != nil || written == nil || w.userDir == "" {
		return err
	}
	records, err := readTrustRecords(w.userDir)
	if err != nil {
		return err
	}
	key := filepath.Join(canonical(filepath.Dir(w.file)), filepath.Base(w.file))
	if before != nil && records.Files[key] != contentHash(before) && !asksNothing(w.file, before) {
		return nil
	}
	return updateTrustRecords(w.userDir, func(r *trustRecords) { r.Files[key] = contentHash(written) })
}

// asksNothing reports whether a project config file holds no setting that
// needs trust.
func asksNothing(file string, data []byte) bool {
	raw, err := parseObject(file, data)
	return err == nil && len(dropWidening(raw)) == 0
}

// setPath sets root[path...] = v, creating objects on the way.
func setPath(root map[string]any, path []string, v any) error {
	m := root
	for i, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			if m[k] != nil {
				return fmt.Errorf("config: cannot set %s: %s is not an object",
					strings.Join(path, "."), strings.Join(path[:i+1], "."))
			}
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
	return nil
}

func getPath(root map[string]any, path []string) any {
	var v any = root
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// toJSONValue converts v to the generic form parseObject produces, so the
// result can be checked like a loaded file.
func toJSONValue(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	err = dec.Decode(&out)
	return out, err
}

func holdsAPIKey(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if (k == "api_key" && e != nil && e != "") || holdsAPIKey(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, holdsAPIKey)
	}
	return false
}

// writeAtomic replaces file with data via a temporary file and rename, so a
// crash never leaves half a config. The file keeps its permissions; a symlinked
// file is written through the link.
func writeAtomic(file string, data []byte) (err error) {
	if target, err := filepath.EvalSymlinks(file); err == nil {
		file = target
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.json.tmp")
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		return fmt.Errorf("config: saving %s: %w", file, err)
	}
	return nil
}
