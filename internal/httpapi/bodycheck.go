package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// CheckUnicode refuses a JSON body whose text is not valid Unicode: bytes
// that are not UTF-8, or a \u escape of half a surrogate pair.
// encoding/json would store either as U+FFFD, and evidence must stay
// verbatim, so the request is refused instead. body is valid JSON.
func CheckUnicode(body []byte) error {
	if !utf8.Valid(body) {
		return errInvalid("the JSON is not valid UTF-8 (text is stored verbatim, so it must be)")
	}
	inString := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString:
			if i+1 < len(body) && body[i+1] == 'u' {
				if r, ok := hexRune(body, i+2); ok && utf16.IsSurrogate(r) {
					// Only a high half followed by a low half is a character.
					lo, ok := rune(0), false
					if r < 0xdc00 && i+7 < len(body) && body[i+6] == '\\' && body[i+7] == 'u' {
						lo, ok = hexRune(body, i+8)
					}
					if !ok || lo < 0xdc00 || lo >= 0xe000 {
						return errInvalid(fmt.Sprintf(`the JSON has an unpaired surrogate escape \u%04x at byte %d`, r, i))
					}
					i += 6 // past the high half; the low half's hex digits are plain text
				}
			}
			i++ // the escaped character; a \u's hex digits are plain text
		}
	}
	return nil
}

// hexRune reads the 4 hex digits of a \u escape at b[i:].
func hexRune(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 16)
	return rune(n), err == nil
}

// CheckPresence applies the parts of a body's schema that decoding cannot
// see, because a field's zero value means "left out": a field tagged
// jsonschema:"required" must be present, and a number tagged
// jsonschema:"minimum=N" that is present must be at least N (an explicit
// top_k 0 is refused, not read as the default). It walks the raw JSON next
// to the decoded value v, into nested objects and arrays of objects; path
// names v in errors ("" for the body).
func CheckPresence(raw json.RawMessage, v reflect.Value, path string) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || len(items) != v.Len() {
			return nil
		}
		for i, item := range items {
			if err := CheckPresence(item, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
	default:
		return nil
	}
	if !hasPresenceRules(v.Type(), 0) {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil // null, or not an object: decoding has judged it
	}
	return checkFields(obj, v, path)
}

func checkFields(obj map[string]json.RawMessage, v reflect.Value, path string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			fv := v.Field(i)
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				if err := checkFields(obj, fv, path); err != nil {
					return err
				}
			}
			continue
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		full := name
		if path != "" {
			full = path + "." + name
		}
		raw, ok := lookupField(obj, name)
		if ok && string(raw) == "null" {
			ok = false
		}
		required, minimum, hasMin := schemaRules(f.Tag.Get("jsonschema"))
		switch {
		case !ok && required:
			return errInvalid(full + " is required")
		case !ok:
			continue
		}
		fv := v.Field(i)
		if hasMin {
			var n float64
			switch fv.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				n = float64(fv.Int())
			case reflect.Float32, reflect.Float64:
				n = fv.Float()
			default:
				hasMin = false
			}
			if hasMin && n < minimum {
				return errInvalid(fmt.Sprintf("%s must be at least %v", full, minimum))
			}
		}
		if err := CheckPresence(raw, fv, full); err != nil {
			return err
		}
	}
	return nil
}

// lookupField finds name in obj as encoding/json does: exactly, else
// case-insensitively.
func lookupField(obj map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if raw, ok := obj[name]; ok {
		return raw, true
	}
	for k, raw := range obj {
		if strings.EqualFold(k, name) {
			return raw, true
		}
	}
	return nil, false
}

// schemaRules reads "required" and "minimum=N" from a jsonschema tag.
func schemaRules(tag string) (required bool, minimum float64, hasMin bool) {
	for part := range strings.SplitSeq(tag, ",") {
		if part == "required" {
			required = true
		}
		if v, ok := strings.CutPrefix(part, "minimum="); ok {
			if n, err := strconv.ParseFloat(v, 64); err == nil {
				minimum, hasMin = n, true
			}
		}
	}
	return required, minimum, hasMin
}

// hasPresenceRules reports whether t or a type inside it has a field that
// CheckPresence checks, so that bodies without any (a batch of messages)
// are not parsed twice.
func hasPresenceRules(t reflect.Type, depth int) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || depth > 8 {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if required, _, hasMin := schemaRules(f.Tag.Get("jsonschema")); required || hasMin {
			return true
		}
		if hasPresenceRules(f.Type, depth+1) {
			return true
		}
	}
	return false
}
