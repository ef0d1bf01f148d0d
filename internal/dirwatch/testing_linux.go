package dirwatch

// What tests of a Notifier's users look at and set, with its lock held.

// Len is the number of watches held.
func (n *Notifier) Len() int { return len(n.watches) }

// Overflows is the number of queue overflows seen.
func (n *Notifier) Overflows() int { return n.overflows }

// Remounts is the number of changes to the mount table seen: a mount
// anywhere in the process's mount namespace, another package's test
// mounting a tmpfs included.
func (n *Notifier) Remounts() int { return n.remounts }

// Max is the budget; SetMax changes it.
func (n *Notifier) Max() int     { return n.max }
func (n *Notifier) SetMax(m int) { n.max = m }

// MarkDev decides whether the file system dev is watchable, as if its
// type said so; the returned function puts back what was known before.
func (n *Notifier) MarkDev(dev uint64, ok bool) (restore func()) {
	known, was := n.devs[dev]
	n.devs[dev] = ok
	return func() {
		if was {
			n.devs[dev] = known
		} else {
			delete(n.devs, dev)
		}
	}
}

// Unrelease lets n add watches again after ReleaseAll, for the tests that
// follow in the same process.
func (n *Notifier) Unrelease() { n.released = false }
