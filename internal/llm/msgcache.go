package llm

import (
	"slices"
	"sync"

	"github.com/coder-agent/coder/internal/chat"
)

// MessageCache keeps what a provider made of each history message (its
// wire encoding) from one request to the next. A session's history only
// grows between calls, so each message is encoded once, not once per call:
// the encoding work and garbage per call stay flat however long the
// session (what remains per call is a comparison of each message with its
// copy, which shares its strings).
//
// A message is reused only when it equals, field by field, the message at
// the same position last time; anything else (compaction, a rebuilt or
// resumed history, another history sharing the provider) is made afresh
// from the first difference on. Safe for concurrent use.
type MessageCache[T any] struct {
	mu   sync.Mutex
	key  string
	seen []chat.Message // private copies of the messages made
	made []T
	enc  Encoder
}

// Make returns conv(m) for each message of msgs. key names whatever else
// conv's results depend on (the model's pass-back rules, say): a new key
// starts afresh. conv may encode with the Encoder it is given, during the
// call only. The returned slice is the caller's to read; it is never
// changed by a later call.
func (c *MessageCache[T]) Make(key string, msgs []chat.Message, conv func(*Encoder, *chat.Message) (T, error)) ([]T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if key != c.key {
		c.key, c.seen, c.made = key, nil, nil
	}
	i := 0
	for i < len(msgs) && i < len(c.seen) && msgs[i].Equal(&c.seen[i]) {
		i++
	}
	if i < len(c.seen) {
		// From the difference on, the old results go. Capping made's
		// capacity makes the next append copy, so that no slice handed out
		// earlier changes; a history that only grew appends past them.
		c.seen, c.made = c.seen[:i], c.made[:i:i]
	}
	c.seen, c.made = slices.Grow(c.seen, len(msgs)-i), slices.Grow(c.made, len(msgs)-i)
	for ; i < len(msgs); i++ {
		v, err := conv(&c.enc, &msgs[i])
		if err != nil {
			return nil, err
		}
		c.seen = append(c.seen, msgs[i].Clone())
		c.made = append(c.made, v)
	}
	return c.made[:len(msgs):len(msgs)], nil
}
