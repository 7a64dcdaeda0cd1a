// Package supervise is the agent supervisor of package proc on Unix: hub
// re-executes itself with argv[0] = Arg0 for every agent start, and this
// package's init runs the supervisor instead of hub. It is a package of its
// own, importing little, so that init runs before hub's heavier package
// inits (see supervise_unix.go). On Windows, where a Job object does its
// work, it is empty.
package supervise
