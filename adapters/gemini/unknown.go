package gemini

import "time"

// versionTimeout bounds `gemini --version`, run only once a stream-json
// record hub does not know shows up (stream-json does not name the
// version; the ACP channel reports it in initialize instead).
const versionTimeout = 10 * time.Second

// invalidSource is the decoder's source for a stdout line that is not JSON
// (banners), which is no record type to warn about.
const invalidSource = "gemini:invalid"
