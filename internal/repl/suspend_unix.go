//go:build unix

package repl

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// notifySignals sends a resize of the terminal to winch and the
// continuing of a stopped coder (fg) to cont.
func notifySignals(winch, cont chan<- os.Signal) {
	signal.Notify(winch, syscall.SIGWINCH)
	signal.Notify(cont, syscall.SIGCONT)
}

// suspend is Ctrl+Z: as a shell's job is stopped, with the terminal as
// the shell expects it (the live region erased, cooked mode, no bracketed
// paste), then taken back and redrawn when the shell continues it (fg).
// Where nothing stops the process (a shell without job control) it says
// so and goes on.
func (r *REPL) suspend() {
	r.scr.Suspend()
	r.term.restore()
	stopped := false
	// The whole process group stops, as the terminal's own Ctrl+Z would
	// stop it; SIGCONT is noted (signal.Notify in Run) when it goes on.
	if syscall.Kill(0, syscall.SIGTSTP) == nil {
		select {
		case <-r.cont:
			stopped = true
		case <-time.After(300 * time.Millisecond):
			select {
			case <-r.cont:
				stopped = true
			default:
			}
		}
	}
	r.resume()
	if !stopped {
		r.o.Renderer.Println(r.o.Style.Yellow("Ctrl+Z: coder was not stopped (the shell that started it has no job control)"))
	}
}
