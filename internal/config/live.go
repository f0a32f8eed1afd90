package config

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/fsnotify/fsnotify"
)

// applyReloadable copies the keys that take effect without a restart from
// src into dst. Every other key needs a restart; the server says which.
// Consumers of a reloadable section read it per call from Live.Load.
func applyReloadable(dst *Config, src Config) {
	dst.APIKeys = src.APIKeys
	dst.Cognitive.Historian = src.Cognitive.Historian
	dst.Cognitive.Query = src.Cognitive.Query
}

// reloadDebounce lets an editor finish writing (or renaming) before the
// file is read.
const reloadDebounce = 150 * time.Millisecond

// Live is the configuration of the running server. Load returns the
// current one: the start-up config with the reloadable sections replaced by
// the latest valid file. A reload parses and validates the whole file (with
// the same environment and flags as at start): an invalid file keeps the
// running config and is reported; a valid one swaps the reloadable keys,
// and the other keys that differ from the running ones are reported as
// waiting for a restart.
type Live struct {
	cur atomic.Pointer[Config]
	log *slog.Logger

	mu       sync.Mutex // one reload at a time; guards the fields below
	read     []byte     // the file as last read, to skip events that changed nothing
	reloads  int
	lastErr  string
	restart  []string
	reloaded time.Time
}

func NewLive(cfg Config, log *slog.Logger) *Live {
	l := &Live{log: log.With("component", "config")}
	l.cur.Store(&cfg)
	return l
}

// Load returns the current configuration. Callers must not modify it.
func (l *Live) Load() *Config { return l.cur.Load() }

// ReloadStatus is what /healthz shows of the reloads.
type ReloadStatus struct {
	// Reloads counts the reloads that applied a valid file.
	Reloads int `json:"reloads"`
	// LastReload is when the last valid file was applied.
	LastReload *time.Time `json:"last_reload,omitempty"`
	// Error is why the file on disk is not in force (it did not parse or validate).
	Error string `json:"error,omitempty"`
	// RestartRequired lists the keys whose new value waits for a restart.
	RestartRequired []string `json:"restart_required"`
}

func (l *Live) Status() ReloadStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := ReloadStatus{Reloads: l.reloads, Error: l.lastErr, RestartRequired: slices.Clone(l.restart)}
	if st.RestartRequired == nil {
		st.RestartRequired = []string{}
	}
	if !l.reloaded.IsZero() {
		t := l.reloaded
		st.LastReload = &t
	}
	return st
}

// reload reads path and applies it through load (the whole config: file,
// environment, flags). A file event (force false) whose bytes did not
// change is ignored; SIGHUP (force true) always reloads.
func (l *Live) reload(path string, load func() (Config, error), trigger string, force bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := os.ReadFile(path)
	if err != nil {
		l.lastErr = fmt.Sprintf("read %s: %v", path, err)
		l.log.Error("config reload failed; keeping the running config", "trigger", trigger, "err", err)
		return
	}
	if !force && l.read != nil && bytes.Equal(b, l.read) {
		return
	}
	l.read = b
	next, err := load()
	if err == nil {
		// The listen address stays until a restart: check the new keys
		// against the one in use.
		err = CheckListenAuth(next.APIKeys, l.Load().Addr)
	}
	if err != nil {
		l.lastErr = err.Error()
		l.log.Error("config reload failed; keeping the running config", "trigger", trigger, "path", path, "err", err)
		return
	}
	l.lastErr = ""
	cur := *l.Load()
	merged := cur
	applyReloadable(&merged, next)
	applied := changedKeys(cur, merged)
	// What differs besides the reloadable keys waits for a restart.
	l.restart = changedKeys(merged, next)
	l.cur.Store(&merged)
	l.reloads++
	l.reloaded = time.Now()
	l.log.Info("config reloaded", "trigger", trigger, "path", path, "applied", applied, "restart_required", l.restart)
	if len(merged.APIKeys) == 0 && len(cur.APIKeys) > 0 {
		l.log.Warn("api_keys removed: serving unauthenticated on loopback; X-Recall-User is trusted as sent")
	}
	for _, k := range l.restart {
		l.log.Warn("config key changed; it takes effect after a restart", "key", k)
	}
}

// watch reloads the file at path when it changes (fsnotify on its
// directory, so that an editor's write-to-temp-and-rename and a symlink swap
// are seen too; events are debounced) and on every value of hup (SIGHUP).
// It returns when ctx ends.
func (l *Live) Watch(ctx context.Context, path string, load func() (Config, error), hup <-chan os.Signal) {
	if path == "" {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				l.log.Warn("SIGHUP: no config file (-config or RECALLD_CONFIG) to reload")
			}
		}
	}
	if b, err := os.ReadFile(path); err == nil {
		l.mu.Lock()
		l.read = b
		l.mu.Unlock()
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(filepath.Dir(path))
	}
	if err != nil {
		l.log.Warn("config file not watched; reload it with SIGHUP", "path", path, "err", err)
	} else {
		defer w.Close()
		events, errs = w.Events, w.Errors
	}
	var debounce <-chan time.Time
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			l.reload(path, load, "SIGHUP", true)
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if timer == nil {
				timer = time.NewTimer(reloadDebounce)
			} else {
				timer.Reset(reloadDebounce)
			}
			debounce = timer.C
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			l.log.Warn("config watch", "err", err)
		case <-debounce:
			debounce = nil
			l.reload(path, load, "file", false)
		}
	}
}

// changedKeys lists the dotted TOML keys whose values differ between a and
// b, sorted. Values are compared, never shown (some are secrets).
func changedKeys(a, b Config) []string {
	fa, fb := flatConfig(a), flatConfig(b)
	var out []string
	for k, va := range fa {
		if vb, ok := fb[k]; !ok || !reflect.DeepEqual(va, vb) {
			out = append(out, k)
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// flatConfig maps each leaf key of cfg's TOML form to its value; arrays
// (api_keys) are one value.
func flatConfig(cfg Config) map[string]any {
	var buf bytes.Buffer
	out := map[string]any{}
	if err := toml.NewEncoder(&buf).Encode(cfg); err != nil {
		out["<unencodable>"] = err.Error()
		return out
	}
	var tree map[string]any
	if _, err := toml.Decode(buf.String(), &tree); err != nil {
		out["<undecodable>"] = err.Error()
		return out
	}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			out[prefix+k] = v
		}
	}
	walk("", tree)
	return out
}
