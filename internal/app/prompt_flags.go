package app

import (
	"errors"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/images"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/regfile"
)

// loadImages reads the --image files: each must be an image coder sends,
// fitted to the providers' limits now, so a bad file stops the run before
// anything starts.
func loadImages(paths []string) ([]chat.Image, error) {
	var out []chat.Image
	for _, p := range paths {
		img, err := images.Load(p, p)
		if err != nil {
			return nil, errors.New("--image " + err.Error())
		}
		out = append(out, img.Image)
	}
	return out, nil
}

// loadSchema reads --json-schema's file: a JSON Schema, checked now so a
// bad one stops the run before anything starts; nil without the flag.
func loadSchema(path string) (*orchestrator.OutputSchema, error) {
	if path == "" {
		return nil, nil
	}
	text, err := regfile.Read(path, 1<<20)
	if err != nil {
		return nil, errors.New("--json-schema " + err.Error())
	}
	s, err := orchestrator.ParseOutputSchema(text)
	if err != nil {
		return nil, errors.New("--json-schema " + path + ": " + err.Error())
	}
	return s, nil
}

// headlessOnly refuses the flags that only mean something with -p.
func headlessOnly(f flags) error {
	switch {
	case len(f.images) > 0:
		return errors.New("--image goes with -p; in the interactive session, type @path or paste the image's path")
	case f.schema != "":
		return errors.New("--json-schema goes with -p")
	case f.rewind > 0:
		return errors.New("--rewind goes with -p; in the interactive session, use /rewind or Esc Esc")
	}
	return nil
}
