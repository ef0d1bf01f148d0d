//go:build unix && !linux

package sandbox

// Without inotify (macOS has FSEvents, which reports late and in
// batches) every cached directory is checked by its identity and change
// time at each scan (scan.go).

// notifyOff is inotify's switch, which does nothing here.
var notifyOff = false

// dirWatch is never made here: every state is unwatched.
type dirWatch struct{}

func (w *dirWatch) unchanged(uint64) bool { return false }

func (w *dirWatch) alive() bool   { return false }
func (w *dirWatch) count() uint64 { return 0 }

type notifier struct{}

func processNotifier() *notifier                                       { return nil }
func (n *notifier) lock()                                              {}
func (n *notifier) unlock()                                            {}
func (n *notifier) drain()                                             {}
func (n *notifier) watchFD(int, *dirWatch, uint64) (*dirWatch, uint64) { return nil, 0 }
func (n *notifier) confirm(w *dirWatch, _ uint64, _ int) *dirWatch     { return nil }
func (n *notifier) release(*dirWatch)                                  {}
func (n *notifier) room() bool                                         { return false }
