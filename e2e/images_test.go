//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// testPNG is a small PNG (sent as it is) of w×h pixels.
func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.RGBA{200, uint8(x), 40, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testJPEG(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 30, 20)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// imageModels are, per protocol, a model the catalog lists as taking
// images, and the shape each protocol's image part has on the wire.
var imageModels = []struct{ protocol, model, shape string }{
	{"openai", "gpt-4.1", "image_url"},
	{"anthropic", "claude-sonnet-4-5", "image"},
	{"openai-responses", "gpt-5", "input_image"},
}

// TestImagesReachTheRequest: an @path image, a pasted path to an image
// outside the workspace and an --image file reach the first request as
// the protocol's image parts, byte for byte; an image the model reads
// with read reaches the next request with the result (Chat Completions:
// in a user message right after the tool results).
func TestImagesReachTheRequest(t *testing.T) {
	shot, photo, pasted, drawn := testPNG(t, 40, 30), testJPEG(t), testPNG(t, 12, 12), testPNG(t, 25, 5)
	for _, tc := range imageModels {
		t.Run(tc.protocol, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			for name, data := range map[string][]byte{filepath.Join(dir, "shot.png"): shot, filepath.Join(dir, "plot.png"): drawn,
				filepath.Join(outside, "Screen Shot.png"): pasted, filepath.Join(outside, "photo.jpg"): photo} {
				if err := os.WriteFile(name, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("read", `{"path":"plot.png"}`)),
				llmtest.Text("Three screenshots and a plot."),
			}})
			env := providerEnv(t, srv, tc.protocol)
			env["CODER_MODEL"] = tc.model
			prompt := "what differs between @shot.png and '" + filepath.Join(outside, "Screen Shot.png") + "'?"
			res := run{args: []string{"-p", prompt, "--image", filepath.Join(outside, "photo.jpg")}, env: env, dir: dir}.exec(t)
			if res.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			user := reqs[0].Messages()[0]
			want := [][]byte{photo, shot, pasted} // given first, then as the text names them
			if user.Role != "user" || !strings.Contains(user.Text, "what differs") || len(user.Images) != len(want) {
				t.Fatalf("first message %+v", user)
			}
			for i, img := range user.Images {
				if img.Shape != tc.shape || img.Bad != "" || !bytes.Equal(img.Data, want[i]) {
					t.Fatalf("image %d: shape %s (want %s), %s, %d bytes (want %d)", i, img.Shape, tc.shape, img.Bad, len(img.Data), len(want[i]))
				}
			}
			if user.Images[0].MediaType != "image/jpeg" || user.Images[1].MediaType != "image/png" {
				t.Fatalf("media types %s %s", user.Images[0].MediaType, user.Images[1].MediaType)
			}
			// read's image: on the tool result, or (Chat Completions) in the
			// user message after it.
			var got []llmtest.Image
			msgs := reqs[1].Messages()
			for i, m := range msgs {
				if m.Role == "tool" {
					got = append(got, m.Images...)
					if tc.protocol == "openai" && i+1 < len(msgs) && msgs[i+1].Role == "user" {
						got = append(got, msgs[i+1].Images...)
					}
				}
			}
			if len(got) != 1 || got[0].Shape != tc.shape || !bytes.Equal(got[0].Data, drawn) {
				t.Fatalf("read's image in the second request: %+v", got)
			}
			if !strings.Contains(res.stderr, "attached image shot.png: 40×30 PNG") {
				t.Fatalf("stderr does not say what was attached: %s", res.stderr)
			}
		})
	}
}

// TestImagesRefusedForATextModel: with a model the catalog lists as text
// only, a request with an image is not sent at all, and the person is
// told why; the same request without the image goes (the control). A
// read of an image tells the model it cannot be shown, sending no image.
func TestImagesRefusedForATextModel(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shot.png"), testPNG(t, 8, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"shot.png"}`)),
		llmtest.Text("I cannot see it."),
	}})
	env := providerEnv(t, srv, "openai")
	env["CODER_MODEL"] = "deepseek-chat"
	res := run{args: []string{"-p", "what is in @shot.png?"}, env: env, dir: dir}.exec(t)
	if res.code != 1 || !strings.Contains(res.stderr, "deepseek-chat takes text only") || !strings.Contains(res.stderr, "was not sent") {
		t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests were sent with the refused image", n)
	}
	res = run{args: []string{"-p", "what is in shot.png? read it"}, env: env, dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("control: exit %d\nstderr: %s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, m := range reqs[1].Messages() {
		if len(m.Images) > 0 {
			t.Fatalf("an image was sent to a text model: %+v", m)
		}
		if m.Role == "tool" && !strings.Contains(m.Text, "takes no images") {
			t.Fatalf("the tool result does not say why: %q", m.Text)
		}
	}
	// provider.images overrides the catalog for a model it has wrong.
	writeFile(t, dir, ".coder/config.json", `{"provider":{"images":true}}`)
	srv2 := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("A black square.")}})
	env2 := providerEnv(t, srv2, "openai")
	env2["CODER_MODEL"] = "deepseek-chat"
	res = run{args: []string{"-p", "what is in @shot.png?"}, env: env2, dir: dir}.exec(t)
	if res.code != 0 || len(srv2.Requests()) != 1 || len(srv2.Requests()[0].Messages()[0].Images) != 1 {
		t.Fatalf("provider.images true: exit %d, stderr %s", res.code, res.stderr)
	}
}

// TestImageFlagChecksTheFile: --image with a file that is not an image is
// a usage error, before anything is sent.
func TestImageFlagChecksTheFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "notes.png", "plain text")
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("x")}})
	env := providerEnv(t, srv, "openai")
	env["CODER_MODEL"] = "gpt-4.1"
	res := run{args: []string{"-p", "hi", "--image", "notes.png"}, env: env, dir: dir}.exec(t)
	if res.code != 2 || !strings.Contains(res.stderr, "--image notes.png: not a PNG, JPEG, GIF or WebP image") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d stderr %s", res.code, res.stderr)
	}
}

// TestACPImageBlock: an editor's image block reaches the model as the
// request's image; the agent says at initialize that it takes images.
func TestACPImageBlock(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("A red square.")}})
	dir := t.TempDir()
	env := providerEnv(t, srv, "anthropic")
	env["CODER_MODEL"] = "claude-sonnet-4-5"
	r := startRawACP(t, env, dir)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	resp, _ := r.until(1)
	caps, _ := resp["result"].(map[string]any)["agentCapabilities"].(map[string]any)
	if pc, _ := caps["promptCapabilities"].(map[string]any); pc["image"] != true {
		t.Fatalf("prompt capabilities %v", caps)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quoteJSON(dir) + `,"mcpServers":[]}}`)
	resp, _ = r.until(2)
	sid, _ := resp["result"].(map[string]any)["sessionId"].(string)
	pic := testPNG(t, 9, 7)
	r.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[` +
		`{"type":"text","text":"what is this?"},{"type":"image","mimeType":"image/png","data":"` + base64.StdEncoding.EncodeToString(pic) + `"}]}}`)
	if resp, _ = r.until(3); resp["result"] == nil {
		t.Fatalf("prompt: %v", resp)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	m := reqs[0].Messages()[0]
	if m.Text != "what is this?" || len(m.Images) != 1 || m.Images[0].Shape != "image" || !bytes.Equal(m.Images[0].Data, pic) {
		t.Fatalf("request %+v", m)
	}
	r.in.Close()
	for range r.lines {
	}
	_ = r.cmd.Wait()
}
