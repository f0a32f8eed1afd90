// Package skills holds the agent skills recalld ships, as text embedded in
// the binary: each skill is a folder with a SKILL.md (YAML front matter with
// name and description, then the instructions) and its parameters. It holds
// no logic; package agent loads and validates the skills.
package skills

import "embed"

// FS holds every skill folder (recall/, ...) and template/, the scaffold of
// `recalld skill new`.
//
//go:embed recall template
var FS embed.FS

// Recall is the name of the recall skill.
const Recall = "recall"

// Template is the folder `recalld skill new` copies.
const Template = "template"
