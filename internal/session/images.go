package session

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"

	"github.com/coder-agent/coder/internal/chat"
)

// insertImages stores the bytes of m's images that are not stored yet, in
// the transaction that stores the message naming them.
func insertImages(ctx context.Context, tx *sql.Tx, imgs []chat.Image, at int64) error {
	for _, img := range imgs {
		if img.Data == nil {
			continue // lost before (a snapshot without its database): nothing to keep
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO images (sha256, media_type, data, created_at) VALUES (?, ?, ?, ?)
ON CONFLICT (sha256) DO NOTHING`, img.SHA256, img.MediaType, img.Data, at); err != nil {
			return fmt.Errorf("image %s: %w", img.SHA256, err)
		}
	}
	return nil
}

// fillImages reads back the bytes of the images msgs name. One that is not
// stored, or whose bytes no longer match their digest, is left without
// data: providers send a note in its place.
func fillImages(ctx context.Context, db *sql.DB, msgs []chat.Message) error {
	cache := map[string][]byte{}
	for i := range msgs {
		imgs := msgs[i].Images
		for j := range imgs {
			h := imgs[j].SHA256
			data, ok := cache[h]
			if !ok {
				err := db.QueryRowContext(ctx, `SELECT data FROM images WHERE sha256 = ?`, h).Scan(&data)
				switch {
				case err == sql.ErrNoRows:
				case err != nil:
					return fmt.Errorf("image %s: %w", h, err)
				case digest(data) != h:
					data = nil
				}
				cache[h] = data
			}
			imgs[j].Data = data
		}
	}
	return nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
