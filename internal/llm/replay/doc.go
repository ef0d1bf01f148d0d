// Package replay holds only tests: every real recorded provider stream in
// testdata (../shared/realstreams, from public repositories' test data; the
// tarball's README.md and INDEX.md give each one's provenance) is served to
// the production providers over loopback HTTP. What they make of it —
// text, reasoning, tool calls, usage, stop reason, errors — is compared
// with an independent reading of the same bytes, and for every recording
// with tool calls the continuation request is checked against that
// provider's documented rules for sending reasoning back.
//
// testdata/followups adds recordings whose next request was recorded too
// (its README.md gives their provenance): coder's next request is held to
// the one the recording's client sent and the endpoint accepted, its
// requests to Mistral to the fields Mistral was seen to accept, and its
// model aliases to the snapshots the APIs said served them. The same
// recordings replay through "-latest" aliases and through a named
// provider.type "openai".
package replay
