// Package edit is the edit engine of the edit, patch and write tools: pure
// functions from a file's text and a model's request to the new text, or
// a refusal that says what to fix. It does no I/O — the tools read, check
// and write the files — so every part of it is fuzzed and tested on text.
//
//   - Replace is edit's old_string → new_string, found by a ladder of rungs
//     that each forgive one more kind of drift (line endings, trailing
//     spaces, indentation, Unicode punctuation, escapes, read's line
//     numbers), never a guess: several candidates are refused, with their
//     lines (MatchError.Explain).
//   - ParsePatch reads the patch format (lenient about its envelope), and
//     FileOp.Apply places an Update's hunks with the same ladder, under
//     their @@ anchors and in the file's order.
//   - The final newline, the BOM and CRLF endings stay as the file has
//     them unless the model's texts ask plainly (KeepStyle for a whole
//     write).
//   - DiffFile is the unified diff of a change, with its line counts.
package edit
