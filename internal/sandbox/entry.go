package sandbox

// The helper starts from this package's initialisation, not from main.
// Go initialises a package after the packages it imports and before those
// that import it, so a coder re-executed as the helper (every sandboxed
// call, and the probe) exits here without initialising the rest of the
// product (the session store's SQLite, Markdown, HTML, MCP, the REPL…),
// none of which it uses; a test binary that links this package acts as the
// helper the same way. Check what still runs first with
// GODEBUG=inittrace=1 coder __sandbox-exec '{"mode":"contain"}' -- true.
func init() { MaybeRunHelper() }
