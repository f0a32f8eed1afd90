package queryapitest

import "github.com/recalld/recalld/queryapi"

// IDs are the message ids of es, in order.
func IDs(es []queryapi.Evidence) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.MessageID
	}
	return out
}

// Scores maps each hit's message id to its score.
func Scores(es []queryapi.Evidence) map[string]float64 {
	out := make(map[string]float64, len(es))
	for _, e := range es {
		out[e.MessageID] = e.Score
	}
	return out
}
