package secrets

import "strings"

// Stream redacts text that arrives in pieces (a running command's output):
// a secret split across two pieces is still caught, because the end of a
// piece that could begin a secret is held back until the next piece (or
// Flush) shows whether it does. Not safe for concurrent use: one Stream
// per output stream.
type Stream struct {
	r       *Redactor
	pending string
}

// Stream returns a streaming redactor over r's values.
func (r *Redactor) Stream() *Stream { return &Stream{r: r} }

// Write takes the next piece and returns what can be shown now, redacted.
func (s *Stream) Write(p string) string {
	text := s.pending + p
	hold := s.heldSuffix(text)
	s.pending = text[len(text)-hold:]
	return s.r.Redact(text[:len(text)-hold])
}

// Flush returns what is still held back, redacted: the output has ended.
func (s *Stream) Flush() string {
	text := s.pending
	s.pending = ""
	return s.r.Redact(text)
}

// heldSuffix is the length of the longest end of text that is a proper
// prefix of a secret value; a secret already whole in text is not held
// (Redact replaces it).
func (s *Stream) heldSuffix(text string) int {
	if s.r == nil {
		return 0
	}
	longest := 0
	for _, v := range s.r.values {
		for n := min(len(v)-1, len(text)); n > longest; n-- {
			if strings.HasSuffix(text, v[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}
