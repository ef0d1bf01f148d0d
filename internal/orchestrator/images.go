package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/images"
	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/tools"
)

// Prompt is a request and the images given with it apart from its text
// (--image, an editor's image blocks). Images the text names — @shot.png,
// a pasted path — are found when the turn starts.
type Prompt struct {
	Text   string
	Images []chat.Image
}

// RunPrompt runs a request with its images: a normal turn. A ! command or
// empty text with images is refused: they would go nowhere.
func (o *Orchestrator) RunPrompt(ctx context.Context, p Prompt) (Outcome, error) {
	if len(p.Images) == 0 {
		return o.RunInput(ctx, p.Text)
	}
	if k := input.Parse(p.Text).Kind; k == input.Empty || k == input.Shell {
		err := errors.New("images go with a request to the model, not with a ! command or an empty input")
		o.emit(event.Error{Message: err.Error()})
		return Outcome{State: event.StateFailed, Reason: err.Error()}, err
	}
	return o.runTurn(ctx, p)
}

// AcceptsImages reports whether the current model takes images in its
// input: Model.Images when the configuration says, else the catalog's
// modalities; an unknown model is taken to be text-only.
func (o *Orchestrator) AcceptsImages() bool {
	if v := o.opts.Model.Images; v != nil {
		return *v
	}
	m, ok := catalog.Lookup(o.opts.Model.Catalog, o.model)
	return ok && m.Image
}

// ErrImagesRefused fails a turn whose request has images the model cannot
// take: nothing is sent, so the person can switch models or drop them.
var ErrImagesRefused = errors.New("the model does not accept images")

// turnImages gathers a request's images: those given, then those its text
// names, each read and fitted to the providers' limits; what cannot be
// attached is said. With images for a model that takes none, the turn is
// refused before anything is sent.
func (o *Orchestrator) turnImages(input string, given []chat.Image) ([]chat.Image, error) {
	home, _ := os.UserHomeDir()
	refs, problems := contextmgr.FindImages(input, o.opts.Workspace, home)
	for _, p := range problems {
		o.emit(event.Notice{Text: "not attached: @" + p})
	}
	imgs := append([]chat.Image(nil), given...)
	var notes []string
	for _, r := range refs {
		p, err := images.Load(r.Abs, r.Name)
		if err != nil {
			o.emit(event.Notice{Text: "not attached: " + err.Error()})
			continue
		}
		imgs = append(imgs, p.Image)
		notes = append(notes, p.Describe())
	}
	if len(imgs) == 0 {
		return nil, nil
	}
	if !o.AcceptsImages() {
		return nil, fmt.Errorf("%w: %s takes text only (per the model catalog), so this request with %s was not sent; "+
			"switch with /model to one that accepts images, or set provider.images to true if this one does", ErrImagesRefused, o.model, plural.Count(len(imgs), "image", "images"))
	}
	for _, n := range notes {
		o.emit(event.Notice{Text: "attached image " + n})
	}
	return imgs, nil
}

// resultImages puts a tool result's images on its message, or, for a
// model that takes no images, says in the result that they were not sent.
func (o *Orchestrator) resultImages(m *chat.Message, res *tools.Result) {
	if len(res.Images) == 0 {
		return
	}
	if o.AcceptsImages() {
		m.Images = res.Images
		return
	}
	f := tools.Failure("%s: it is an image, and %s takes no images, so it cannot be shown", res.Summary, o.model)
	m.Content, m.IsError = f.Content, true
}
