// Package streamparse holds pure decoders that turn the bytes an agent CLI
// writes (one JSON record per line) into normalized adapters.Events. A
// decoder keeps only the state one stream needs (tool input accumulating
// across deltas, which messages were already streamed); it starts no
// processes and does no I/O, so it is tested with recorded fixtures and
// fuzzed. Unknown records become EventRaw and malformed input never panics.
package streamparse
