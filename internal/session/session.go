// Package session holds a conversation's record: its id, title, messages,
// usage and times. Persistence (SQLite + JSON snapshots) lives here too.
package session

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/chat"
)

// Session is one conversation.
type Session struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Created  time.Time      `json:"created"`
	Updated  time.Time      `json:"updated"`
	Model    string         `json:"model"`
	Mode     string         `json:"mode"`
	Messages []chat.Message `json:"messages"`
	Usage    chat.Usage     `json:"usage"`

	// Workspace is the root the session belongs to; lists and --continue show
	// only sessions of the current workspace. Empty means the store's own.
	Workspace string `json:"workspace,omitempty"`
	// Generation must be incremented by whoever rewrites Messages other than
	// by appending (compaction, repair): the store then rewrites every stored
	// row instead of appending the new ones.
	Generation int    `json:"generation,omitempty"`
	Todos      []Todo `json:"todos,omitempty"`
	// Started are the tool calls recorded as started (Store.MarkStarted)
	// whose result was not stored: RepairInterrupted tells the model their
	// outcome is unknown.
	Started map[string]bool `json:"-"`
	// Subagents are the task tool's runs, each with its own history; they
	// are never part of Messages (see SubagentRun).
	Subagents []SubagentRun `json:"subagents,omitempty"`
}

// Todo is one item of the session's plan (the todowrite/todoread tools).
type Todo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"` // TodoPending, TodoInProgress or TodoDone
}

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoDone       = "done"
)

// New starts an empty session.
func New(now time.Time, model, mode string) *Session {
	return &Session{ID: NewID(now), Created: now, Updated: now, Model: model, Mode: mode}
}

// NewID returns an id that is safe in file names and easy to type: the UTC
// date and time plus six random base-32 characters, e.g. 20261122-080412-k3m9qa.
func NewID(now time.Time) string {
	const alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
	var r [6]byte
	_, _ = rand.Read(r[:])
	for i := range r {
		r[i] = alphabet[int(r[i])%len(alphabet)]
	}
	return now.UTC().Format("20060102-150405") + "-" + string(r[:])
}

// ValidID reports whether id has the shape of a session id: letters, digits,
// '-' and '_', at most 128 characters. Ids become file names, so anything
// else (path separators, "..") is refused before it reaches the file system.
func ValidID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// TitleFrom makes a title from the first input: its first line, at most 60 runes.
func TitleFrom(input string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(input), "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) <= 60 {
		return line
	}
	r := []rune(line)
	return string(r[:59]) + "…"
}

// FormatTodos renders a todo list, one line each: "[x] 1. content", with
// [ ] pending, [~] in progress and [x] done. The model sees this one format
// wherever the list is shown to it.
func FormatTodos(todos []Todo) string {
	var b strings.Builder
	for _, td := range todos {
		mark := "[ ]"
		switch td.Status {
		case TodoDone:
			mark = "[x]"
		case TodoInProgress:
			mark = "[~]"
		}
		fmt.Fprintf(&b, "%s %s. %s\n", mark, td.ID, td.Content)
	}
	return strings.TrimRight(b.String(), "\n")
}
