package permission

import (
	"cmp"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// HardDeny reports whether req hits the built-in deny list, and why. No rule, policy, hook or
// "always" answer lifts these, on any path (native loop, ACP relay, hub run --approve).
func HardDeny(req Request) (string, bool) {
	if req.Command != "" {
		if why := cmp.Or(req.reading().deny, req.windowsDeny()); why != "" {
			return why, true
		}
	}
	if req.Path != "" && req.Kind != "read" && req.Kind != "search" && IsEnvFile(req.Path) {
		return whyEnv, true
	}
	if req.Path != "" && writesFile(req) {
		home, _ := os.UserHomeDir() // the OS's form: absTarget joins with filepath
		if credStoreFile(req.Path) || credStoreFile(absTarget(req.Path, home, req.Cwd)) {
			return whyCredWrite, true
		}
	}
	return "", false
}

// Unclear reports a command hub cannot read before the shell runs it (a computed program, a
// computed operand of a watched command as in rm -rf "$X", invalid shell). No "always" covers it.
func Unclear(req Request) bool {
	return req.Command != "" && req.reading().unclear
}

// DirsAfter is where a shell that keeps its directory between commands may be after line
// ran in dirs (the line stops anywhere: dirs too); nil when hub cannot tell, as after cd "$D",
// or after a script it sources, a trap (DEBUG runs before the next command) or an alias
// (read apart from the line) that may cd.
func DirsAfter(line string, dirs []string) []string {
	rd := readLine(line, dirs)
	for _, c := range rd.calls {
		if p := c.prog(); p == "source" || p == "." || p == "trap" || p == "alias" || rd.unclear && (p == "" || p == "cd" || p == "pushd" || p == "popd" || p == "eval") {
			return nil // a sourced script, trap or alias may cd; an unclear line may cd where hub cannot follow
		}
	}
	if rd.ends == nil {
		return nil
	}
	var from []string
	for _, d := range dirs {
		from = append(from, path.Clean(toSlash(d)))
	}
	return unionDirs(from, rd.ends)
}

// IsEnvFile reports a dotenv file (.env, .env.local, …; in any case, as macOS and Windows
// ignore it) other than a committed template (.env.example, …).
func IsEnvFile(p string) bool {
	parts := winNames(strings.Trim(p, `"'`)) // as Windows also names it: .env::$DATA, ".env.", ENV~1
	base := parts[len(parts)-1]
	if !names(base, ".env") && !strings.HasPrefix(base, ".env.") {
		return false
	}
	return !slices.Contains([]string{".env.example", ".env.sample", ".env.template", ".env.dist"}, base)
}

const (
	whyDelete    = "recursive delete of /, the home directory, a system directory or a registry hive or top-level key is never allowed"
	whyFind      = "deleting from /, the home directory or a system directory with find is never allowed"
	whyMove      = "moving away /, the home directory or a system directory is never allowed"
	whyChmod     = "changing owner or mode of /, the home directory or a system directory recursively is never allowed"
	whyDevice    = "writing raw devices is never allowed"
	whyMkfs      = "formatting file systems (mkfs) is never allowed"
	whyForkBomb  = "fork bombs are never allowed"
	whyPipe      = "piping a download into a shell is never allowed"
	whyDownload  = "running downloaded code is never allowed"
	whyEnv       = "writing .env files is never allowed (secrets)"
	whyCredWrite = "writing into a credential store (~/.ssh, ~/.aws, ~/.netrc, …) is never allowed"
	whyCredCode  = "inline code naming a credential store (~/.ssh, ~/.aws, ~/.netrc, …), or run in one, is never allowed: hub cannot read what it writes there"
	whyForcePush = "force-pushing to main or master is never allowed"
	whyCredLink  = "hard-linking a file of a credential store (~/.ssh, ~/.aws, ~/.netrc, …) is never allowed: its new name would read and change the key where no path check sees it"
)

// denyRule looks at one simple command, its wrappers stripped and its words expanded.
type denyRule struct {
	name  string
	why   string
	match func(k *check) bool
}

// denyRules: categories as in the README.
var denyRules = []denyRule{
	{"rm", whyDelete, deletes},
	{"find -delete", whyFind, findDelete},
	{"mv protected", whyMove, movesAway},
	{"rsync --delete", whyDelete, rsyncDelete},
	{"chmod -R", whyChmod, chmodRoot},
	{"device write", whyDevice, rawDevice},
	{"mkfs", whyMkfs, formats},
	{"interpreter fork bomb", whyForkBomb, codeForkBomb},
	{".env write", whyEnv, writesEnv},
	{"credential store write", whyCredWrite, writesCredStore},
	{"home work tree", whyCredWrite, plantsHome},
	{"credential hard link", whyCredLink, linksCredStore},
	{"force push", whyForcePush, forcePushMain},
	{"windows recovery", whyRecovery, winRule(whyRecovery)}, // winDenied: vssadmin delete shadows, bcdedit /set, …
	{"windows disk", whyDevice, winRule(whyDevice)},
	{"execution policy", whyExecPolicy, winRule(whyExecPolicy)},
	{"wsl unregister", whyDistro, winRule(whyDistro)},
	{"code from a URL", whyDownload, winRule(whyDownload)},
	{"mshta inline script", whyInlineHTA, winRule(whyInlineHTA)},
	{"windows trust", whyTrust, winTrust},
}

// check is one call under the rules; one that cannot tell marks the line unclear (unknown).
type check struct {
	r *reader
	c *call
}

func (k *check) unknown() { k.r.out.unclear = true }

func (k *check) args() []arg {
	if len(k.c.argv) == 0 {
		return nil
	}
	return k.c.argv[1:]
}

func (r *reader) emit(c *call) {
	r.out.calls = append(r.out.calls, c)
	k := &check{r: r, c: c}
	for _, rule := range denyRules {
		if (strings.HasSuffix(rule.name, " write") || len(c.argv) > 0 && !c.argv[0].dynamic) && rule.match(k) { // a write rule: a computed program's redirects too
			r.setDeny(rule.why)
		}
	}
	k.downloads()
	k.noteWrites(k.writtenFiles()) // before ln -sf x package.json is noted: it writes package.json, not x
	r.symlinks(c)
	for _, w := range k.writtenFiles() {
		if !w.under && !w.lands || c.prog() == "git" { // a clone's files are git's own
			continue
		}
		ps, ok := k.paths(w)
		if !ok {
			ps = append(ps, unknownTarget)
		}
		r.out.fills = append(r.out.fills, ps...)
	}
}

// symlinks notes ln -s TARGET NAME, so that NAME/ later means TARGET.
func (r *reader) symlinks(c *call) {
	if c.prog() != "ln" || !hasShort(c.argv[1:], "s") && !hasLong(c.argv[1:], "--symbolic") || len(c.cwds) != 1 {
		return
	}
	ops := operands(c.argv[1:])
	if len(ops) == 0 || anyDynamic(ops) {
		return
	}
	target := ops[0].text
	name := path.Base(target)
	if len(ops) > 1 {
		name = ops[len(ops)-1].text
	}
	if !path.IsAbs(name) {
		name = path.Join(c.cwds[0], name)
	}
	if !path.IsAbs(target) {
		target = path.Join(path.Dir(name), target)
	}
	r.links[path.Clean(name)] = path.Clean(target)
}

func (r *reader) followLinks(p string) string {
follow:
	for i := 0; i < 8; i++ { // a link to a link, up to 8 deep
		for name, target := range r.links {
			if p == name || strings.HasPrefix(p, name+"/") {
				p = path.Join(target, strings.TrimPrefix(p, name))
				continue follow
			}
		}
		break
	}
	return p
}

// hits reports an operand naming a protected path; an unknown operand makes the line unclear.
func (k *check) hits(a arg, recursive bool) bool {
	paths, ok := k.known(a)
	if !ok {
		return a.download
	}
	follows := slices.Contains([]string{"chmod", "chattr", "setfacl", "shred", "truncate", "rsync"}, k.c.prog()) || // chown -R, chgrp -R: only with -H or -L
		slices.Contains([]string{"chown", "chgrp"}, k.c.prog()) && hasShort(k.args(), "HL") ||
		k.c.prog() == "find" && slices.ContainsFunc(k.args(), func(a arg) bool { return slices.Contains([]string{"-L", "-H", "-follow"}, a.text) })
	deep := follows && (hasShort(k.args(), "L") || hasArg(k.args(), "-follow")) || // find -L, chown -RL: the links under it too
		slices.ContainsFunc(k.c.layers, func(l []string) bool { // and find -L's -exec rm {}
			return len(l) > 0 && progName(l[0]) == "find" && (slices.Contains(l, "-L") || slices.Contains(l, "-follow"))
		})
	return slices.ContainsFunc(paths, func(p string) bool {
		return a.glob && k.r.protectedGlob(p, recursive || a.under) || !a.glob && k.r.protected(p, recursive || a.under)
	}) || slices.ContainsFunc(k.onDisk(a, follows), func(d arg) bool { return k.hits(d, recursive) }) ||
		deep && slices.ContainsFunc(k.linksUnder(paths), func(d arg) bool { return k.r.protected(d.text, true) })
}

// linksUnder are where the links under paths lead, and the links under
// those (the first 10,000 entries of each of the first 32 trees).
func (k *check) linksUnder(paths []string) []arg {
	var out []arg
	seen := map[string]bool{}
	for i := 0; i < len(paths) && i < 32; i++ {
		n := 0
		_ = filepath.WalkDir(lookupName(fromShellPath(paths[i])), func(q string, d fs.DirEntry, err error) error {
			if n++; n > 10000 {
				return filepath.SkipAll
			}
			if err == nil && d.Type()&fs.ModeSymlink != 0 {
				for _, t := range k.onDisk(arg{text: toSlash(q)}, true) {
					out = append(out, t)
					if !seen[t.text] && !k.r.protected(t.text, true) {
						seen[t.text], paths = true, append(paths, t.text)
					}
				}
			}
			return nil
		})
	}
	return out
}

// onDisk is an operand as the kernel reaches it through links on disk (keys -> ../../.ssh):
// its directories always, its last name when the command follows it (keys/., chmod -R keys)
// but not when it acts on the link (rm keys); a pattern's matches too.
func (k *check) onDisk(a arg, follows bool) []arg {
	if a.onDisk { // resolved once is resolved: no second pass (on Windows a path's spelling may change each time)
		return nil
	}
	t, cwds := shellPath(a.text), k.c.cwds
	if path.IsAbs(t) {
		cwds = []string{""}
	}
	native := func(p string) string { // unix takes .. after a link from its target: no Clean
		if runtime.GOOS == "windows" {
			return fromShellPath(p)
		}
		return p
	}
	var out []arg
	add := func(raw string, glob bool) {
		dir, last := path.Split(strings.TrimRight(raw, "/"))
		real := filepath.Join(resolveLinks(native(dir+".")), last)
		if follows || strings.HasSuffix(raw, "/") || last == "." || last == ".." {
			real = resolveLinks(real)
		}
		d := toSlash(real)
		if rel, ok := strings.CutPrefix(d+"/", toSlash(resolveLinks(fromShellPath(k.r.home)))+"/"); ok {
			d = path.Join(k.r.home, rel) // the home as the rules name it, where it is itself a link
		}
		if d != path.Clean(raw) && !slices.ContainsFunc(out, func(o arg) bool { return o.text == d }) {
			out = append(out, arg{text: d, glob: glob, under: a.under, onDisk: true})
		}
	}
	raws, _ := k.paths(a) // through the links made on the line too (ln -s keys k; rm -rf k/*)
	for _, d := range cwds {
		if d != "" {
			t = d + "/" + shellPath(a.text)
		}
		raws = append(raws, t)
	}
	for _, raw := range raws {
		if a.dynamic || strings.Trim(raw, "/") == "" {
			continue
		}
		add(raw, a.glob)
		if matches, _ := filepath.Glob(lookupName(native(raw))); a.glob {
			for _, m := range matches[:min(len(matches), maxGlobMatches)] {
				add(toSlash(m), false)
			}
		}
	}
	return out
}

func hasShort(args []arg, letters string) bool {
	return slices.ContainsFunc(beforeDashes(args), func(a arg) bool {
		t := a.text
		return len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t[1:], letters)
	})
}

func hasLong(args []arg, names ...string) bool {
	return slices.ContainsFunc(beforeDashes(args), func(a arg) bool {
		return slices.ContainsFunc(names, func(n string) bool { return a.text == n || strings.HasPrefix(a.text, n+"=") })
	})
}

// beforeDashes are the words before "--", which ends the options.
func beforeDashes(args []arg) []arg {
	if i := slices.IndexFunc(args, func(a arg) bool { return a.text == "--" }); i >= 0 {
		return args[:i]
	}
	return args
}

func deletes(k *check) bool {
	prog, args := k.c.prog(), k.args()
	if prog == "tar" || prog == "bsdtar" || prog == "gtar" {
		return hasLong(args, "--remove-files") && k.hitsAny(operands(args), true)
	}
	if prog == "git" && len(args) > 0 && args[0].text == "clean" { // what git does not track, under each pathspec
		if hasShort(args[1:], "n") || hasLong(args[1:], "--dry-run") {
			return false
		}
		if ops := operands(skipValues(args[1:], "-e", "--exclude")); len(ops) > 0 {
			return k.hitsAny(ops, true)
		}
		return k.hits(arg{text: "."}, true)
	}
	if !slices.Contains([]string{"rm", "unlink", "shred", "srm", "wipe", "rmdir", "truncate", "rimraf"}, prog) {
		return false
	}
	recursive := (prog == "rm" || prog == "shred" || prog == "srm" || prog == "wipe") && (hasShort(args, "rR") || hasLong(args, "--recursive")) ||
		prog == "rimraf" // node's rm -rf (npx rimraf dist)
	if prog == "truncate" {
		args = skipValues(args, "-s", "--size", "-r", "--reference")
	}
	if recursive && hasLong(args, "--no-preserve-root") {
		return true
	}
	return k.hitsAny(operands(args), recursive)
}

// hitsAny checks every operand (each may make the line unclear), not only those before a hit.
func (k *check) hitsAny(ops []arg, recursive bool) bool {
	hit := false
	for _, o := range ops {
		hit = k.hits(o, recursive) || hit
	}
	return hit
}

func findDelete(k *check) bool {
	if k.c.prog() != "find" || !hasArg(k.args(), "-delete") {
		return false
	}
	starts := findStarts(k.args())
	if len(starts) == 0 {
		starts = []arg{{text: "."}}
	}
	return k.hitsAny(starts, true)
}

// skipValues drops the given options and their values.
func skipValues(args []arg, opts ...string) []arg {
	var out []arg
	for i := 0; i < len(args); i++ {
		if slices.Contains(opts, args[i].text) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

func hasArg(args []arg, s string) bool {
	return slices.ContainsFunc(args, func(a arg) bool { return a.text == s })
}

// movesAway: mv of a protected path is its delete.
func movesAway(k *check) bool {
	if k.c.prog() != "mv" {
		return false
	}
	ops := operands(k.args())
	if !hasShort(k.args(), "t") && !hasLong(k.args(), "--target-directory") && len(ops) > 0 {
		ops = ops[:len(ops)-1]
	}
	return k.hitsAny(ops, true)
}

func rsyncDelete(k *check) bool {
	if k.c.prog() != "rsync" {
		return false
	}
	ops := operands(k.args())
	if hasLong(k.args(), "--remove-source-files") {
		return k.hitsAny(ops[:max(len(ops)-1, 0)], true)
	}
	return hasLong(k.args(), "--delete", "--delete-before", "--delete-after", "--delete-during", "--delete-excluded", "--del") &&
		len(ops) > 1 && k.hits(ops[len(ops)-1], true)
}

func chmodRoot(k *check) bool {
	args := k.args()
	if !slices.Contains([]string{"chmod", "chown", "chgrp", "chattr", "setfacl"}, k.c.prog()) || !hasShort(args, "R") && !hasLong(args, "--recursive") {
		return false
	}
	ops := operands(args)
	if len(ops) > 0 && !hasLong(args, "--reference") {
		ops = ops[1:] // the mode or owner
	}
	return k.hitsAny(ops, true)
}

var blockDevice = lazyRE(`^/dev/(sd|nvme|hd|vd|xvd|disk|rdisk|mmcblk|md|dm-|mapper/|loop|nbd|zram|bcache|sr[0-9]|root$|mem$|kmem$|port$)`)

// paths resolves an operand, through the symlinks made earlier on the line.
func (k *check) paths(a arg) ([]string, bool) {
	ps, ok := resolve(a, k.c.cwds)
	for i, p := range ps {
		ps[i] = k.r.followLinks(p)
	}
	return ps, ok
}

// known is paths for a rule: an operand hub cannot resolve makes the line unclear, and so does
// ${X:-/}, which is checked as its known value.
func (k *check) known(a arg) ([]string, bool) {
	if a.dynamic && a.maybe {
		k.unknown()
		a.dynamic = false
	}
	ps, ok := k.paths(a)
	if !ok {
		k.unknown()
	}
	return ps, ok
}

func (k *check) isDevice(a arg) bool {
	if a.dynamic {
		return false
	}
	paths, _ := k.paths(a)
	if len(paths) == 0 {
		paths = []string{path.Clean(a.text)}
	}
	return slices.ContainsFunc(paths, func(p string) bool {
		return blockDevice().MatchString(p) && !strings.HasPrefix(p, "/dev/fd/") && !strings.HasPrefix(p, "/dev/shm/")
	})
}

var writeRedirs = set(">", ">>", ">|", "&>", "&>>", "<>", ">&")

// writeTargets are the files its redirections write (not >&2, a copy of a descriptor).
func (c *call) writeTargets() []arg {
	var out []arg
	for _, rd := range c.redirs {
		if o := rd.op.String(); writeRedirs[o] && !(o == ">&" && strings.Trim(rd.target.text, "0123456789-") == "") {
			out = append(out, rd.target)
		}
	}
	return out
}

// readOnlyDeviceUse: listing partitions or checking a disk writes nothing.
func readOnlyDeviceUse(prog string, args []arg) bool {
	switch prog {
	case "fdisk", "sfdisk", "gdisk", "sgdisk", "parted":
		return hasShort(args, "lpd") && prog != "parted" || hasLong(args, "--list", "--dump", "--print", "--verify") ||
			prog == "parted" && (hasShort(args, "l") || hasArg(args, "print"))
	case "badblocks":
		return !hasShort(args, "wn")
	case "cryptsetup":
		writes := []string{"luksFormat", "erase", "luksErase", "reencrypt", "format"}
		return !slices.ContainsFunc(args, func(a arg) bool { return slices.Contains(writes, a.text) })
	}
	return false
}

// deviceTools overwrite the devices among their operands.
var deviceTools = set("shred", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "blkdiscard",
	"mkswap", "badblocks", "cryptsetup", "truncate", "tee", "pv", "sg_format")

func rawDevice(k *check) bool {
	if slices.ContainsFunc(k.writtenFiles(), k.isDevice) {
		return true
	}
	prog, args := k.c.prog(), k.args()
	switch {
	case deviceTools[prog]:
		return !readOnlyDeviceUse(prog, args) && slices.ContainsFunc(operands(args), k.isDevice)
	case prog == "diskutil":
		erases := []string{"erasedisk", "erasevolume", "zerodisk", "randomdisk", "securerase", "secureerase", "partitiondisk", "reformat", "apfs"}
		return slices.ContainsFunc(operands(args), func(o arg) bool { return slices.Contains(erases, strings.ToLower(o.text)) })
	}
	return false
}

func formats(k *check) bool {
	p := k.c.prog()
	return strings.HasPrefix(p, "mkfs") || strings.HasPrefix(p, "mke2fs") || strings.HasPrefix(p, "newfs") ||
		p == "mkdosfs" || p == "mkntfs" || p == "mkexfatfs" || p == "mformat" || p == "mkudffs" || p == "mkreiserfs" || p == "mkswap"
}

var forkLoop = lazyRE(`fork\s*(\(\s*\))?\s*(while|until)\s*fork|while\s*(true|1|True)\s*[:;{)]?[^\n]{0,40}fork\s*\(|for\s*\(\s*;\s*;\s*\)\s*\{?\s*fork`)

// codeForkBomb: perl -e 'fork while fork', python -c 'while 1: os.fork()'.
func codeForkBomb(k *check) bool {
	return interpreters[strings.TrimRight(k.c.prog(), "0123456789.")] &&
		slices.ContainsFunc(k.args(), func(a arg) bool { return forkLoop().MatchString(a.text) })
}

func writesEnv(k *check) bool {
	return slices.ContainsFunc(k.writtenFiles(), func(t arg) bool { return IsEnvFile(t.text) })
}

// writesCredStore: planting a key (echo >> ~/.ssh/authorized_keys) is as bad as deleting one;
// so are unnamed files (an archive's) written under a directory holding a store (~, ~/.config).
func writesCredStore(k *check) bool {
	return slices.ContainsFunc(k.writtenFiles(), func(a arg) bool { return k.writesStore(a, !k.replacesLink()) })
}

// replacesLink: ln -n (or -T) replaces a link to a directory instead of linking in it.
func (k *check) replacesLink() bool {
	return k.c.prog() == "ln" && (hasShort(k.args(), "nT") || hasLong(k.args(), "--no-dereference", "--no-target-directory"))
}

// linksCredStore reports a hard link to a file of a credential store (ln, link, cp -l, cpio -pl,
// pax -rwl, rsync --link-dest): the link is a plain workspace file to every later check.
func linksCredStore(k *check) bool {
	args, prog := k.args(), k.c.prog()
	var srcs []arg
	switch {
	case prog == "link" || prog == "ln" && !hasShort(args, "s") && !hasLong(args, "--symbolic") || prog == "cp" && (hasShort(args, "l") || hasLong(args, "--link")):
		dirs, rest := k.optValues(args, "t", "--target-directory", "S")
		if srcs = operands(rest); len(dirs) == 0 && len(srcs) > 1 {
			srcs = srcs[:len(srcs)-1] // the last is the link's name
		}
	case prog == "cpio" && (hasShort(args, "l") || hasLong(args, "--link")):
		srcs = k.c.stdin.files
	case prog == "pax" && hasShort(args, "l"):
		srcs = operands(args)
	case prog == "rsync":
		srcs, _ = k.optValues(args, "", "--link-dest", "")
	}
	return slices.ContainsFunc(srcs, func(a arg) bool {
		a.under = a.under || prog == "pax" || prog == "rsync" || prog == "cp" && (hasShort(args, "rRa") || hasLong(args, "--recursive", "--archive"))
		return k.writesStore(a, true) // ln -L and BSD's ln follow a link given, GNU's may not: as if followed
	})
}

// writesStore reports a written file in a credential store, by its name or through the links
// on disk (the last name too, as opening it follows it, unless ln -n replaces that link).
func (k *check) writesStore(a arg, follow bool) bool {
	paths, _ := k.known(a)
	return slices.ContainsFunc(paths, func(p string) bool {
		return k.r.inCredStore(p, false) || a.glob && k.r.credGlob(p) || a.under && k.r.holdsCredStore(p)
	}) || slices.ContainsFunc(k.onDisk(a, follow), func(d arg) bool { return k.writesStore(d, follow) })
}

// writtenFiles are the files a command writes (sponge, gawk -i inplace too); a directory
// marked under stands for the files under it (an unpacked archive, a clone).
func (k *check) writtenFiles() []arg {
	out := k.c.writeTargets()
	args := k.args()
	ops := operands(args)
	switch prog := k.c.prog(); prog {
	case "tee", "sponge", "truncate", "touch":
		out = append(out, ops...)
	case "cp", "mv", "install", "ln", "rsync", "scp", "ditto":
		out = append(out, k.copyDests(args)...)
	case "sed", "perl":
		if hasShort(args, "i") || hasLong(args, "--in-place") { // -i, -Ei, -pi, --in-place=.bak
			out = append(out, ops...)
		}
	case "awk", "gawk":
		out = append(out, awkInPlace(args)...)
	case "tar", "bsdtar", "gtar", "unzip", "7z", "7za", "7zr", "cpio", "pax", "patch", "jar": // everything under the directory an archive (or a diff) is unpacked in
		out = append(out, k.unpackDirs(prog, args)...)
	case "git":
		out = append(out, k.gitWrites(args)...)
	case "ssh-keygen":
		out = append(out, k.keygenWrites(args)...)
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.text, "of="); ok {
				out = append(out, k.tilde(arg{text: v, dynamic: a.dynamic, glob: a.glob}))
			}
		}
	}
	if downloaders[k.c.prog()] {
		for _, t := range k.downloadTargets(k.c.prog(), args) {
			out = append(out, k.tilde(t))
		}
	}
	return append(out, k.storeWrites(k.c.prog(), args)...)
}

// copyDests are the destination of a copy, move or link and, should it be a directory, the
// file each source lands as there (cp .netrc ~).
func (k *check) copyDests(args []arg) []arg {
	var dest arg
	vals, rest := []arg(nil), args
	gnu := slices.Contains([]string{"cp", "mv", "install", "ln"}, k.c.prog()) // -t DIR and -T: rsync's -t keeps times
	if gnu {
		vals, rest = k.optValues(args, "t", "--target-directory", map[bool]string{false: "S", true: "BSgmo"}[k.c.prog() == "install"]) // -St: t is -S's value
	}
	ops := operands(rest)
	switch {
	case len(vals) > 0:
		dest = vals[len(vals)-1]
	case len(ops) > 1:
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	case len(ops) == 1 && k.c.prog() == "ln": // ln TARGET links in the directory
		dest = arg{text: "."}
	default:
		return nil
	}
	dest.under = dest.under || gnu && (hasShort(args, "T") || hasLong(args, "--no-target-directory")) // cp -rT x ~ fills ~ with x's files
	out := []arg{dest}
	if ps, ok := k.paths(dest); ok && k.replacesLink() && !slices.ContainsFunc(ps, func(p string) bool {
		fi, err := os.Lstat(lookupName(fromShellPath(p)))
		return err != nil || fi.Mode()&os.ModeSymlink == 0
	}) {
		return out // ln -sfn x keys replaces the link keys
	}
	for _, o := range ops {
		src := o.text
		if _, p, ok := strings.Cut(src, ":"); ok { // rsync and scp: HOST:PATH
			src = p
		}
		base := path.Base(src)
		if strings.HasSuffix(src, "/") || k.c.prog() == "ditto" { // ditto copies what is in a directory
			base = "."
		}
		switch {
		case dest.dynamic:
		case o.dynamic && base != "." && base != "..":
			k.unnamedIn(dest)
		default: // x/, x/. and x/.. copy what is in them (rsync, BSD cp): files hub cannot name
			out = append(out, arg{text: path.Join(dest.text, base), glob: dest.glob || o.glob, under: dest.under || base == "." || base == "..", lands: true})
		}
	}
	return out
}

// unnamedIn notes a file written in dir under a name hub cannot know (cp "$F" ~): the line
// is unclear where dir may hold a credential store.
func (k *check) unnamedIn(dir arg) {
	if ps, ok := k.paths(dir); !ok || slices.ContainsFunc(ps, k.r.holdsCredStore) {
		k.unknown()
	}
}

// unpackDirs are the directories an archive (or diff) is unpacked in, else here; hub cannot
// name what it holds.
func (k *check) unpackDirs(prog string, args []arg) []arg {
	first := ""
	if len(args) > 0 {
		first = args[0].text
	}
	short, long := "C", "--directory"
	switch ops := operands(args); {
	case prog == "unzip":
		_, opts := k.optValues(args, "dP", "", "") // -dsrc/.. and -Ppass hold values, not options
		if i := slices.IndexFunc(opts, func(a arg) bool { return !strings.HasPrefix(a.text, "-") }); i >= 0 {
			opts = opts[:i] // past the archive, words are members (unzip x.zip -x -c extracts)
		}
		if hasShort(opts, "lptvZc") {
			return nil // lists, tests or prints
		}
		short, long = "d", ""
	case prog == "pax" && hasShort(args, "r") && hasShort(args, "w") && len(ops) > 0:
		return []arg{{text: ops[len(ops)-1].text, dynamic: ops[len(ops)-1].dynamic, under: true}}
	case prog == "pax":
		if !hasShort(args, "r") {
			return nil
		}
		short, long = "", ""
	case prog == "patch":
		outs, rest := k.optValues(args, "o", "--output", "piBDFVYzgdr") // -iconfig.diff, -dtools: values, not -o
		if len(outs) > 0 || len(operands(skipValues(rest, "-p", "-i", "-r", "-B", "-D", "-F", "-V", "-Y", "-z", "-g", "-d", "--input", "--reject-file",
			"--directory", "--strip", "--prefix", "--suffix", "--basename-prefix", "--fuzz", "--ifdef", "--version-control", "--get"))) > 0 {
			return nil // the file named, or the output
		}
		short = "d"
	case strings.HasPrefix(prog, "7z"):
		if first != "x" && first != "e" {
			return nil
		}
		short, long = "o", ""
	case prog == "cpio":
		if !hasShort(args, "i") && !hasLong(args, "--extract") {
			return nil
		}
		short = "D"
	case !strings.HasPrefix(first, "-") && strings.Contains(first, "x"): // tar xzf
	case !hasShort(args, "x") && !hasLong(args, "--extract", "--get"):
		return nil
	}
	if prog == "cpio" && !hasLong(args, "--no-absolute-filenames") || prog == "pax" || strings.HasSuffix(prog, "tar") &&
		(hasShort(args, "P") || hasLong(args, "--absolute-names") || !strings.HasPrefix(first, "-") && strings.Contains(first, "P")) ||
		prog == "unzip" && hasShort(args, ":") || strings.HasPrefix(prog, "7z") && slices.ContainsFunc(args, func(a arg) bool { return strings.HasPrefix(a.text, "-spf") }) {
		k.unknown() // members named from / (or ../, unzip -:) are written there, wherever it unpacks
	}
	dirs, _ := k.optValues(args, short, long, unpackValued(prog))
	if dirs == nil {
		dirs = []arg{{text: "."}}
	}
	for i := range dirs {
		dirs[i].under = true
	}
	return dirs
}

// unpackValued are the other short options of an unpacker that take a
// value: tar -xfC.tgz reads C.tgz (no -C), 7z's -aoa and -poops are no -o.
func unpackValued(prog string) string {
	switch {
	case strings.HasPrefix(prog, "7z"):
		return "abcdefghijklmnpqrstuvwxyz" // a switch a word, its value after its name
	case strings.HasSuffix(prog, "tar"):
		return "fbgHIKLNTVXFs" // bsdtar -s PATTERN renames members; GNU tar's -s takes none: read as taking one, a -C after it is not trusted
	}
	return map[string]string{"unzip": "P", "patch": "piBDFVYzgor", "cpio": "EFHIMOR"}[prog]
}

// optValues splits an option out of args wherever it stands (-s V, -xsV, long V, long=V with ~
// expanded): its values, the rest. long is space separated. In a cluster the first option
// that takes a value (of short or valued: -vs V is v's) takes the rest of it, else the next word.
func (k *check) optValues(args []arg, short, long, valued string) (vals, rest []arg) {
	for i := 0; i < len(args); i++ {
		a, t := args[i], args[i].text
		j := strings.IndexAny(t, short+valued)
		ours := len(t) > 1 && t[0] == '-' && t[1] != '-' && j > 0 && strings.IndexByte(short, t[j]) >= 0
		switch name, v, eq := strings.Cut(t, "="); {
		case eq && slices.Contains(strings.Fields(long), name):
			vals = append(vals, k.tilde(arg{text: v, dynamic: a.dynamic}))
		case (t == long || slices.Contains(strings.Fields(long), t) || ours && j == len(t)-1) && i+1 < len(args):
			vals, i = append(vals, args[i+1]), i+1
		case ours && j < len(t)-1:
			vals = append(vals, arg{text: t[j+1:], dynamic: a.dynamic})
		case j == len(t)-1 && j > 0 && t[0] == '-' && t[1] != '-' && i+1 < len(args): // another option's value: tar -xf -C is the archive "-C"
			rest, i = append(rest, a, args[i+1]), i+1
		default:
			rest = append(rest, a)
		}
	}
	return vals, rest
}

// gitWrites: the directory git clone, worktree add/move or init fills; operands are read both
// with values in a cluster (clone -qb main URL DIR) and without, and both count.
func (k *check) gitWrites(args []arg) []arg {
	if len(args) == 0 {
		return nil
	}
	if args[0].text == "apply" && hasLong(args, "--unsafe-paths") {
		k.unknown() // git apply refuses a diff's .git/… and ../… unless told this: then it writes anywhere
	}
	opts, ends := args[1:], []arg(nil) // after --, operands only
	if i := slices.IndexFunc(opts, func(a arg) bool { return a.text == "--" }); i >= 0 {
		opts, ends = opts[:i], opts[i:]
	}
	long := `--branch --origin --depth --config --reference --reference-if-able --separate-git-dir --upload-pack --jobs --template --filter
		--shallow-since --shallow-exclude --server-option --bundle-uri --revision --initial-branch --object-format --ref-format --reason`
	_, rest := k.optValues(opts, "bBocuj", long, "")
	loose := skipValues(args[1:], strings.Fields("-b -B -o -c -u -j "+long)...)
	return slices.Concat(k.gitDir(args[0].text, operands(loose)), k.gitDir(args[0].text, operands(append(rest, ends...))))
}

func (k *check) gitDir(sub string, ops []arg) []arg {
	switch {
	case sub == "init" && len(ops) == 0:
		return []arg{{text: "."}}
	case sub == "init":
		return ops[:1]
	case sub == "worktree" && len(ops) > 2 && ops[0].text == "move": // the work tree's files go there
		ops[2].under = true
		return ops[2:3]
	case sub != "clone" && !(sub == "worktree" && len(ops) > 1 && ops[0].text == "add") || len(ops) == 0:
		return nil
	case len(ops) > 1:
		ops[1].under = true
		return ops[1:2]
	case ops[0].dynamic: // a directory named after a URL hub cannot know
		k.unnamedIn(arg{text: "."})
		return nil
	}
	name := strings.TrimSuffix(path.Base(strings.TrimRight(ops[0].text, "/")), ".git")
	return []arg{{text: name, under: true}}
}

var keygenOpts = optSpec{valued: "abCDEFfIJjMmNnOPRrstVwYzZ"}

// keygenWrites: the key ssh-keygen writes (-f, else in ~/.ssh) and the keys it certifies,
// unless it only reads (-l, -y, -B, -F, -e, -i, -Y) or makes host keys (-A).
func (k *check) keygenWrites(args []arg) []arg {
	f, reads := arg{text: k.r.home + "/.ssh/id_rsa"}, false
	rest := keygenOpts.walk(args, func(o string, v arg) {
		if o == "f" {
			f = k.tilde(v)
		}
		reads = reads || o != "" && strings.Contains("lyBFeiYA", o)
	})
	if reads {
		return nil
	}
	return append([]arg{f}, rest...)
}

// tilde expands a leading ~ in an option's value (dd of=~/x), as bash does after "=".
func (k *check) tilde(a arg) arg {
	if !a.dynamic && (a.text == "~" || strings.HasPrefix(a.text, "~/")) {
		a.text = k.r.home + a.text[1:]
	}
	return a
}

// forcePushMain: a force push or delete onto main or master; one whose target hub cannot
// tell (no refspec, HEAD, a variable) is unclear.
func forcePushMain(k *check) bool {
	args := k.args()
	if k.c.prog() != "git" || len(args) == 0 || args[0].text != "push" {
		return false
	}
	force, del, all := false, false, false
	var refs []arg
	for i := 1; i < len(args); i++ {
		t := longName(args[i].text, "--force", "--force-with-lease", "--mirror", "--delete", "--push-option", "--repo", "--receive-pack", "--exec")
		switch {
		case slices.Contains([]string{"-o", "--push-option", "--repo", "--receive-pack", "--exec"}, t):
			i++ // its value
		case t == "--force" || strings.HasPrefix(t, "--force-with-lease") || t == "--mirror":
			force = true
			all = all || t == "--mirror"
		case t == "--delete":
			del = true
		case t == "--all" || t == "--branches":
			all = true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			force = force || strings.ContainsRune(t[1:], 'f')
			del = del || strings.ContainsRune(t[1:], 'd')
		default:
			refs = append(refs, args[i])
		}
	}
	if len(refs) > 0 && !hasLong(args, "--repo") {
		refs = refs[1:] // the remote
	}
	force = force || slices.ContainsFunc(refs, func(r arg) bool { return strings.HasPrefix(r.text, "+") || strings.HasPrefix(r.text, ":") })
	if !force && !del {
		return false
	}
	if all {
		return true
	}
	if len(refs) == 0 {
		k.unknown() // the current branch's upstream: hub cannot tell
		return false
	}
	for _, r := range refs {
		src, dst, hasColon := strings.Cut(strings.TrimPrefix(r.text, "+"), ":")
		if !hasColon {
			dst = src
		}
		dst = strings.ToLower(dst) // a remote on a file system that folds case (a path on macOS or Windows) takes MAIN for main
		if r.dynamic || dst == "head" || dst == "@" {
			k.unknown()
			continue
		}
		dst = strings.TrimPrefix(strings.TrimPrefix(dst, "refs/"), "heads/")
		if slices.ContainsFunc([]string{"main", "master"}, func(b string) bool { ok, _ := path.Match(dst, b); return ok || dst == b }) {
			return true
		}
	}
	return false
}

// downloads tracks the files downloads write and refuses running them, or feeding one to a shell.
func (k *check) downloads() {
	r, c, prog := k.r, k.c, k.c.prog()
	runner := shells[prog] || interpreters[strings.TrimRight(prog, "0123456789.")] || prog == "source" || prog == "."
	if archivers[prog] && (c.stdin.dl || slices.ContainsFunc(c.argv[1:], r.isDownloaded)) {
		r.unpacked = true // what it unpacks is downloaded code too
	}
	switch { // the first reason found stands
	case len(c.argv) > 0 && c.argv[0].dynamic && c.argv[0].download:
		r.setDeny(whyDownload)
	case runner && c.stdin.dl:
		r.setDeny(whyPipe)
	case runner && slices.ContainsFunc(c.argv[1:], func(a arg) bool { return a.download || r.isDownloaded(a) }),
		prog != "" && r.downloaded[path.Base(strings.ReplaceAll(c.argv[0].text, `\`, "/"))], // .\a.exe, C:\x\a.exe
		r.unpacked && len(c.argv) > 0 && (runner && len(c.argv) > 1 && relative(c.argv[len(c.argv)-1]) || relative(c.argv[0]) && strings.Contains(c.argv[0].text, "/")):
		r.setDeny(whyDownload)
	}
	copied := slices.Contains([]string{"cp", "mv", "install", "ln"}, prog) && slices.ContainsFunc(operands(c.argv[1:]), r.isDownloaded)
	if downloaders[prog] || c.stdin.dl || copied { // what a download, or a copy of one, writes is downloaded too
		for _, w := range k.writtenFiles() {
			if w.text != "-" && w.text != "" {
				r.downloaded[path.Base(w.text)] = true
			}
		}
	}
}

var archivers = set("tar", "bsdtar", "gtar", "unzip", "7z", "7za", "gunzip", "unxz", "bunzip2", "zstd", "unzstd")

// relative reports an operand naming a file relative to the directory.
func relative(a arg) bool {
	return !a.dynamic && a.text != "" && !strings.HasPrefix(a.text, "/") && !strings.HasPrefix(a.text, "-")
}

func (r *reader) isDownloaded(a arg) bool {
	return !a.dynamic && r.downloaded[path.Base(a.text)]
}

// downloadTargets are the files curl, wget & co. write: -o/-O/--output values (wget's log too;
// one missing is "") and the URLs' base names (not curl's without -O), under -P/--output-dir.
func (k *check) downloadTargets(prog string, args []arg) []arg {
	outs, dirs := "oO", "P"
	if prog == "curl" {
		outs, dirs = "o", ""
	}
	out, _ := k.optValues(append(args, arg{}), outs, "--output --output-document --out", "")
	dir, _ := k.optValues(append(args, arg{}), dirs, "--directory-prefix --output-dir", "")
	if prog != "curl" || slices.ContainsFunc(args, func(a arg) bool { // curl -O, --remote-name
		t := a.text
		return t == "--remote-name" || t == "--remote-name-all" || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.Contains(t, "O")
	}) {
		for _, a := range args {
			u, _, _ := strings.Cut(a.text, "?")
			u, _, _ = strings.Cut(u, "#")
			if _, rest, ok := strings.Cut(u, "://"); ok && strings.Contains(rest, "/") {
				out = append(out, arg{text: path.Base(rest)})
			} else if strings.Contains(a.text, "://") {
				out = append(out, arg{text: "index.html"})
			}
		}
	}
	for _, d := range dir {
		for _, o := range out {
			if !path.IsAbs(o.text) {
				out = append(out, arg{text: path.Join(d.text, o.text), dynamic: d.dynamic || o.dynamic})
			}
		}
	}
	return out
}
