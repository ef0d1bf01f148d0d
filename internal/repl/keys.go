package repl

import uv "github.com/charmbracelet/ultraviolet"

// editKey applies an editing key; keys it does not know are ignored.
func editKey(e *editor, ev uv.KeyPressEvent) {
	switch ev.String() {
	case "backspace", "ctrl+h":
		e.backspace()
	case "delete", "ctrl+d":
		e.del()
	case "left", "ctrl+b":
		e.left()
	case "right", "ctrl+f":
		e.right()
	case "home", "ctrl+a":
		e.home()
	case "end", "ctrl+e":
		e.end()
	case "ctrl+left", "alt+left", "alt+b":
		e.wordLeft()
	case "ctrl+right", "alt+right", "alt+f":
		e.wordRight()
	case "ctrl+w", "alt+backspace":
		e.deleteWordLeft()
	case "ctrl+k":
		e.killToEnd()
	case "ctrl+u":
		e.killToStart()
	case "up", "ctrl+p":
		e.up()
	case "down", "ctrl+n":
		e.down()
	case "tab":
		e.insert("\t")
	default:
		if ev.Text != "" && ev.Mod&(uv.ModCtrl|uv.ModAlt) == 0 {
			e.insert(ev.Text)
		}
	}
}
