package undo

// releaseTree forgets sc's cached tree and releases its watches.
func releaseTree(sc *Scanner) {
	n := processNotifier()
	if n == nil {
		return
	}
	n.Lock()
	defer n.Unlock()
	sc.trees.drop(n)
}
