package repl

// resume takes the terminal back after the process was stopped and
// continued (Ctrl+Z then fg, or a SIGSTOP from elsewhere): raw mode
// again, and the live region drawn afresh where the cursor is.
func (r *REPL) resume() {
	if err := r.term.raw(); err != nil {
		r.o.Renderer.Println(r.o.Style.Red("error: cannot use the terminal: " + err.Error()))
	}
	r.scr.Resume()
}
