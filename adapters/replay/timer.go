package replay

import "time"

// newTimer is a variable so tests can shorten delays.
var newTimer = func(ms int) *time.Timer { return time.NewTimer(time.Duration(ms) * time.Millisecond) }
