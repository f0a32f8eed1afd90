// Package console serves the memory console: a page at /console that lets
// an operator see, search and correct what recalld remembers, and watch
// its health. The page is static (HTML, CSS and JavaScript embedded in the
// binary, no CDN, no build step) and talks to the public HTTP API with the
// operator's key, so it shows what a bot would get and every change goes
// through the API's validation.
package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assets embed.FS

// Prefix is where the console is served.
const Prefix = "/console"

// Handler serves the console under Prefix: the page at Prefix and
// Prefix+"/", its files under Prefix+"/assets/". Each file carries an ETag
// of its content, so a browser revalidates instead of downloading again.
func Handler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := map[string]file{}
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ctype := mime.TypeByExtension(path.Ext(p))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		files[p] = file{body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: ctype}
		return nil
	})
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, Prefix)
		switch {
		case name == "" || name == "/":
			name = "index.html"
		case strings.HasPrefix(name, "/assets/"):
			name = strings.TrimPrefix(name, "/assets/")
		default:
			http.NotFound(w, r)
			return
		}
		f, ok := files[name]
		if !ok || name == "index.html" && strings.HasPrefix(r.URL.Path, Prefix+"/assets/") {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.ctype)
		h.Set("ETag", f.etag)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		// The page loads nothing from elsewhere and is never framed.
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		if match := r.Header.Get("If-None-Match"); match == f.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodHead {
			return
		}
		w.Write(f.body)
	})
}

type file struct {
	body  []byte
	etag  string
	ctype string
}
