package otlp

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/coder-agent/coder/internal/textcut"
)

// What a collector answers: on success an Export…ServiceResponse whose
// partial_success (= 1) holds rejected_spans or rejected_data_points
// (= 1) and error_message (= 2); on failure a google.rpc.Status whose
// message is field 2. Each comes in the request's encoding.

// partialSuccess is the error a success answer carries, if any: data the
// collector rejected (not to be retried), or a warning it sent.
func partialSuccess(contentType string, answer []byte, what string) error {
	var rejected int64
	var msg string
	switch {
	case isJSON(contentType):
		var r struct {
			PartialSuccess *struct {
				RejectedSpans      json.RawMessage `json:"rejectedSpans"`
				RejectedDataPoints json.RawMessage `json:"rejectedDataPoints"`
				ErrorMessage       string          `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		if json.Unmarshal(answer, &r) != nil || r.PartialSuccess == nil {
			return nil
		}
		p := r.PartialSuccess
		rejected = max(jsonInt(p.RejectedSpans), jsonInt(p.RejectedDataPoints))
		msg = p.ErrorMessage
	case isProtobuf(contentType):
		protoFields(answer, func(num, wire int, _ uint64, data []byte) {
			if num != 1 || wire != wireBytes {
				return
			}
			protoFields(data, func(num, wire int, v uint64, data []byte) {
				switch {
				case num == 1 && wire == wireVarint:
					rejected = int64(v)
				case num == 2 && wire == wireBytes:
					msg = string(data)
				}
			})
		})
	}
	switch {
	case rejected > 0:
		return fmt.Errorf("the collector rejected %d %s: %s", rejected, what, clipMessage(msg))
	case msg != "":
		return fmt.Errorf("the collector said: %s", clipMessage(msg))
	}
	return nil
}

// statusMessage is ": message" of a failure's answer, or "".
func statusMessage(contentType string, answer []byte) string {
	var msg string
	switch {
	case isJSON(contentType):
		var st struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(answer, &st) == nil {
			msg = st.Message
		}
	case isProtobuf(contentType):
		protoFields(answer, func(num, wire int, _ uint64, data []byte) {
			if num == 2 && wire == wireBytes {
				msg = string(data)
			}
		})
	case strings.HasPrefix(contentType, "text/plain"):
		msg, _, _ = strings.Cut(string(answer), "\n")
	}
	if msg = clipMessage(msg); msg == "" {
		return ""
	}
	return ": " + msg
}

func isJSON(ct string) bool     { return strings.HasPrefix(ct, ContentJSON) }
func isProtobuf(ct string) bool { return strings.HasPrefix(ct, ContentProtobuf) }

// jsonInt reads a 64-bit integer that proto3 JSON writes as a string or
// a number.
func jsonInt(raw json.RawMessage) int64 {
	n, _ := strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
	return n
}

// clipMessage keeps a collector's message short and printable.
func clipMessage(s string) string {
	s = strings.TrimSpace(textcut.Valid(s))
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// protoFields calls f with each field of a binary protobuf message (a
// varint's or fixed number's value, or a length-delimited field's bytes);
// it stops at the first malformed byte.
func protoFields(b []byte, f func(num, wire int, v uint64, data []byte)) {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return
		}
		b = b[n:]
		num, wire := int(key>>3), int(key&7)
		switch wire {
		case wireVarint:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return
			}
			f(num, wire, v, nil)
			b = b[n:]
		case wireFixed64:
			if len(b) < 8 {
				return
			}
			f(num, wire, binary.LittleEndian.Uint64(b), nil)
			b = b[8:]
		case wireFixed32:
			if len(b) < 4 {
				return
			}
			f(num, wire, uint64(binary.LittleEndian.Uint32(b)), nil)
			b = b[4:]
		case wireBytes:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return
			}
			f(num, wire, 0, b[n:n+int(l)])
			b = b[n+int(l):]
		default:
			return
		}
	}
}
