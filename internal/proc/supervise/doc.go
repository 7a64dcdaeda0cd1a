// Package supervise is the agent supervisor of package proc on Unix: hub
// re-executes itself with argv[0] = Arg0 for every agent start, and this
// package's init, which runs before hub's heavier inits because it imports
// little, runs the supervisor instead of hub. Empty on Windows (a Job object).
package supervise
