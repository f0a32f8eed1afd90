// Package embed holds the embedder seam of recalld: the Embedder interface
// that turns chat text into unit-length vectors, the optional TermWeighter
// interface for query-side corpus weighting, and its implementations.
//
// Hashing is the built-in, dependency-free embedder. It hashes word and
// character n-grams of Chinese, English and mixed text into a fixed number of
// buckets, so it needs no model download and gives the same vector for the
// same text on every machine. OpenAI talks to any OpenAI-compatible
// embeddings endpoint (OpenAI, Ollama's /v1, vLLM, TEI) through langchaingo.
// Composite joins a local sentence encoder (the Universal Sentence Encoder
// Lite of package uselite, the default of recalld serve) with Hashing in one
// vector, so meaning and exact words both count.
//
// # Where idf lives
//
// Inverse document frequency makes rare words count more than common ones, but
// it depends on the corpus, and the corpus of a chat-memory store grows with
// every message. If stored vectors carried idf they would drift: a vector
// written on day one would be weighted with day-one statistics and compare
// badly with a query weighted with day-ninety statistics, and keeping them
// consistent would mean re-embedding everything as the store grows.
//
// So document vectors are tf-only: Embed weights each feature by (1+ln tf)
// and never looks at other documents, so a stored vector is final. Corpus
// statistics are applied on the query side only. Storage keeps per-user
// document frequencies of the feature ids that TermWeighter.Terms reports,
// and passes them to TermWeighter.EmbedQuery, which weights the query's
// features by BM25 idf. The dot product of an idf-weighted query with a
// tf-only document is the usual asymmetric tf·idf score, and it is always
// computed with the statistics of the moment.
//
// Vectors of embedders with different Name never mix; storage records the
// name and refuses to compare vectors across it.
//
// Package embed imports no other recalld package and no SQLite or Bleve code.
package embed
