package claude

import "flag"

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")
