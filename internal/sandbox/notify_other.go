//go:build unix && !linux

package sandbox

// Without inotify (macOS has FSEvents, which reports late and in
// batches) every cached directory is checked by its identity and change
// time at each scan (scan.go).

// notifyOff is inotify's switch, which does nothing here.
var notifyOff = false

// dirWatch is never made here: every state is unwatched.
type dirWatch struct{}

func (w *dirWatch) Unchanged(uint64) bool { return false }

func (w *dirWatch) Alive() bool   { return false }
func (w *dirWatch) Count() uint64 { return 0 }

type notifier struct{}

func processNotifier() *notifier                                       { return nil }
func (n *notifier) Lock()                                              {}
func (n *notifier) Unlock()                                            {}
func (n *notifier) Drain()                                             {}
func (n *notifier) WatchFD(int, *dirWatch, uint64) (*dirWatch, uint64) { return nil, 0 }
func (n *notifier) Confirm(w *dirWatch, _ uint64, _ int) *dirWatch     { return nil }
func (n *notifier) Release(*dirWatch)                                  {}
func (n *notifier) Room() bool                                         { return false }
