//go:build windows

package repl

import "os"

// notifySignals: Windows has no signal for a resized console nor job
// control; the size is read again at each redraw.
func notifySignals(_, _ chan<- os.Signal) {}

// suspend is Ctrl+Z: a Windows console has no job control to stop coder.
func (r *REPL) suspend() {
	r.o.Renderer.Println(r.o.Style.Yellow("Ctrl+Z: coder cannot be stopped here (Windows consoles have no job control)"))
}
