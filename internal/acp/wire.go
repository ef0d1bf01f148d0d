package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// maxMessage bounds one incoming message. The SDK's reader gives up on a
// line over 10 MiB and closes the connection; a longer message is refused
// here with an error response instead, and the connection goes on.
const maxMessage = 8 << 20

// JSON-RPC error codes this package answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	codeNotFound       = -32002 // ACP's resource_not_found
)

// wireOut is the editor-facing stream. The SDK writes each message as one
// Write of one whole line; wireOut serialises those with this package's own
// error responses so lines never interleave, and runs a hook once a
// response carrying a given session id is out (see afterResponse).
type wireOut struct {
	mu    sync.Mutex
	w     io.Writer
	after map[string]func()
}

func newWireOut(w io.Writer) *wireOut { return &wireOut{w: w, after: map[string]func(){}} }

func (o *wireOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	n, err := o.w.Write(p)
	var hook func()
	if err == nil && len(o.after) > 0 {
		if id := responseSessionID(p); id != "" {
			hook = o.after[id]
			delete(o.after, id)
		}
	}
	o.mu.Unlock()
	if hook != nil {
		// Not inline: the hook sends messages, and the SDK holds its own
		// write lock while it calls Write.
		go hook()
	}
	return n, err
}

// afterResponse runs fn once the response holding session id sid has been
// written. Editors register a session when session/new answers; updates
// sent before that (the command list) would be dropped by them.
func (o *wireOut) afterResponse(sid string, fn func()) {
	o.mu.Lock()
	o.after[sid] = fn
	o.mu.Unlock()
}

// forget drops a hook that will not fire (the session closed first).
func (o *wireOut) forget(sid string) {
	o.mu.Lock()
	delete(o.after, sid)
	o.mu.Unlock()
}

// responseSessionID is the result.sessionId of a response line, if any.
func responseSessionID(line []byte) string {
	if !bytes.Contains(line, []byte(`"sessionId"`)) {
		return ""
	}
	var m struct {
		Method string `json:"method"`
		Result *struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "" || m.Result == nil {
		return ""
	}
	return m.Result.SessionID
}

// writeError answers a message the SDK never sees.
func (o *wireOut) writeError(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err != nil {
		return
	}
	_, _ = o.Write(append(b, '\n'))
}

// screen passes well-formed JSON-RPC messages from in on to the returned
// reader (the SDK's input) and answers everything else itself: a line that
// is not JSON gets a parse error, JSON that is no request, notification or
// response an invalid-request error, an oversized line an invalid-request
// error. The SDK would log such lines and drop them, leaving the editor
// waiting. Nothing flows until start is called.
func screen(in io.Reader, out *wireOut, log *slog.Logger) (r io.ReadCloser, start func()) {
	pr, pw := io.Pipe()
	return pr, func() {
		go func() {
			br := bufio.NewReaderSize(in, 64<<10)
			for {
				line, tooLong, err := readLine(br, maxMessage)
				switch {
				case tooLong:
					log.Warn("refused an oversized message", "limit_bytes", maxMessage)
					out.writeError(nil, codeInvalidRequest, "message larger than 8 MiB")
				case len(bytes.TrimSpace(line)) > 0:
					if code, msg, id := checkMessage(line); code != 0 {
						out.writeError(id, code, msg)
					} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
						return // the SDK side is gone
					}
				}
				if err != nil {
					if errors.Is(err, io.EOF) {
						err = nil
					}
					pw.CloseWithError(err)
					return
				}
			}
		}()
	}
}

// readLine reads one line without its newline; past limit bytes the rest
// of the line is read and dropped and tooLong is set.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return bytes.TrimRight(line, "\r\n"), tooLong, err
		}
	}
}

// checkMessage says what is wrong with a line as a JSON-RPC 2.0 message:
// code 0 when nothing is. id is the message's id when it has a usable one.
func checkMessage(line []byte) (code int, msg string, id json.RawMessage) {
	if !json.Valid(line) {
		return codeParseError, "Parse error: the message is not JSON", nil
	}
	var m struct {
		ID     json.RawMessage  `json:"id"`
		Method *json.RawMessage `json:"method"`
		Result json.RawMessage  `json:"result"`
		Error  json.RawMessage  `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return codeInvalidRequest, "Invalid request: a message is a JSON object (batches are not supported)", nil
	}
	if len(m.ID) > 0 && !validID(m.ID) {
		return codeInvalidRequest, "Invalid request: id must be a string, a number or null", nil
	}
	switch {
	case m.Method != nil:
		var name string
		if json.Unmarshal(*m.Method, &name) != nil || name == "" {
			return codeInvalidRequest, "Invalid request: method must be a non-empty string", m.ID
		}
		return 0, "", nil
	case len(m.ID) > 0 && (m.Result != nil || m.Error != nil):
		return 0, "", nil // a response to one of our requests
	}
	return codeInvalidRequest, "Invalid request: neither a request, a notification nor a response", m.ID
}

func validID(raw json.RawMessage) bool {
	switch raw[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}
