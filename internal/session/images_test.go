package session

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

func testImage(b byte) chat.Image {
	data := bytes.Repeat([]byte{b, 0x89, 'P', 'N', 'G'}, 2000)
	return chat.Image{MediaType: "image/png", SHA256: digest(data), Name: "shot.png", Width: 10, Height: 10, Data: data}
}

// TestImagesAreStoredOnce: an image named by two messages (and by a
// rewrite of the history) has one row, the snapshot names it without its
// bytes, and a load (from the database, or from the snapshot) brings the
// bytes back.
func TestImagesAreStoredOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	img := testImage(1)
	s := New(t0, "m", "build")
	s.Messages = []chat.Message{
		{Role: chat.RoleUser, Content: "what is this?", Images: []chat.Image{img}, Turn: 1},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read", Arguments: `{}`}}},
		{Role: chat.RoleTool, ToolCallID: "c1", ToolName: "read", Content: "[image]", Images: []chat.Image{img}},
	}
	checkpoint(t, st, s)
	s.Generation++ // a rewrite stores every row again
	checkpoint(t, st, s)
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM images`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d image rows (%v), want 1", n, err)
	}
	snap, err := os.ReadFile(st.SnapshotPath(s.ID))
	if err != nil {
		t.Fatal(err)
	}
	if enc := base64.StdEncoding.EncodeToString(img.Data[:300]); bytes.Contains(snap, []byte(enc[:100])) ||
		!bytes.Contains(snap, []byte(img.SHA256)) {
		t.Fatal("the snapshot holds the image's bytes, or does not name it")
	}
	st.Close()

	st = openStore(t, dir, "/w", nil)
	got, err := st.Load(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2} {
		m := got.Messages[i]
		if len(m.Images) != 1 || !bytes.Equal(m.Images[0].Data, img.Data) || m.Images[0].Name != "shot.png" {
			t.Fatalf("message %d images %+v", i, m.Images)
		}
	}
	if got.Messages[0].Turn != 1 {
		t.Fatalf("turn %d", got.Messages[0].Turn)
	}
	// The session row goes (a lost database would lose the images too;
	// here only the messages are gone): the snapshot brings the session
	// back and the images table its pictures.
	if _, err := st.db.Exec(`DELETE FROM sessions WHERE id = ?`, s.ID); err != nil {
		t.Fatal(err)
	}
	delete(st.persisted, s.ID)
	got, err = st.Load(ctx, s.ID)
	if err != nil || len(got.Messages) != 3 || !bytes.Equal(got.Messages[2].Images[0].Data, img.Data) {
		t.Fatalf("from the snapshot: %v %+v", err, got)
	}
}

// TestAnImageWhoseBytesChangedIsDropped: bytes that no longer match their
// digest are not sent as that image.
func TestAnImageWhoseBytesChangedIsDropped(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	img := testImage(2)
	s := New(t0, "m", "build")
	s.Messages = []chat.Message{{Role: chat.RoleUser, Content: "look", Images: []chat.Image{img}}}
	checkpoint(t, st, s)
	if _, err := st.db.Exec(`UPDATE images SET data = ? WHERE sha256 = ?`, []byte("other"), img.SHA256); err != nil {
		t.Fatal(err)
	}
	delete(st.persisted, s.ID)
	got, err := st.Load(context.Background(), s.ID)
	if err != nil || got.Messages[0].Images[0].Data != nil || got.Messages[0].Images[0].SHA256 != img.SHA256 {
		t.Fatalf("%v %+v", err, got.Messages[0].Images)
	}
}
