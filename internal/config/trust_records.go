package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/coder-agent/coder/internal/lockfile"
)

// trustFileName holds, in the user config directory, what the person
// trusted: the content of each control file they confirmed (its SHA-256),
// by absolute path. coder writes it; a model cannot (it is outside every
// workspace the sandbox lets a command write).
const trustFileName = "trust.json"

// trustRecords is trust.json.
type trustRecords struct {
	// Files maps a control file's absolute path to the SHA-256 (hex) of the
	// content the person trusted.
	Files map[string]string `json:"files"`
	// Adopted are trusted_workspaces entries whose control files were
	// recorded as they stood the first time coder ran there with content
	// trust; from then on their changes need the person again.
	Adopted []string `json:"adopted,omitempty"`
}

// contentHash is how a control file's content is recorded.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// readTrustRecords reads userDir's trust.json; a missing file is no record.
func readTrustRecords(userDir string) (trustRecords, error) {
	path := filepath.Join(userDir, trustFileName)
	r := trustRecords{Files: map[string]string{}}
	data, err := readFile(path)
	if err != nil || data == nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return trustRecords{Files: map[string]string{}}, &FileError{File: path,
			Problem: "coder's record of trusted control files is damaged (" + err.Error() + "); remove it and confirm your workspaces again"}
	}
	if r.Files == nil {
		r.Files = map[string]string{}
	}
	return r, nil
}

// updateTrustRecords changes userDir's trust.json under its lock, so two
// coders answering at once both keep their records.
func updateTrustRecords(userDir string, change func(*trustRecords)) error {
	lock, err := lockTrustRecords(filepath.Join(userDir, trustFileName+".lock"))
	if err != nil {
		return err
	}
	defer lock.Unlock()
	r, err := readTrustRecords(userDir)
	if err != nil {
		return err
	}
	change(&r)
	slices.Sort(r.Adopted)
	r.Adopted = slices.Compact(r.Adopted)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(userDir, trustFileName), append(data, '\n'))
}

// lockTrustRecords waits a little for another coder's update to finish.
func lockTrustRecords(path string) (*lockfile.Lock, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, err := lockfile.TryLock(path)
		if !errors.Is(err, lockfile.ErrHeld) || time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("config: recording trust: %w", err)
			}
			return l, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}
