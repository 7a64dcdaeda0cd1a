package permission

import (
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/sandbox"
)

// The paths a delete, move or recursive chmod must never touch. A recursive one is refused on
// /, a top-level system directory, anything in a system tree, a home and its homeDirs, and a
// credential store or a directory holding one; a plain delete only inside a system tree or a
// credential store. Caches and build output stay the rules' business.

var topLevel = set("/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc",
	"/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap", "/nix", "/mnt", "/media", "/Users",
	"/System", "/Library", "/Applications", "/private", "/Volumes", "/cores", "/var/root")

var systemTrees = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/sbin", "/usr",
	"/proc", "/sys", "/var/lib", "/var/log", "/var/db", "/var/spool", "/var/mail", "/var/backups", "/System", "/Library",
	"/private/etc", "/private/var/db", "/nix/store"}

// systemFree are the parts of system trees users manage themselves.
var systemFree = []string{"/usr/local/", "/dev/shm/", "/Library/Caches/", "/dev/null", "/dev/fd/", "/dev/stdout", "/dev/stderr"}

// usrLocal are /usr/local's own directories: never deleted whole.
var usrLocal = set("/usr/local", "/usr/local/bin", "/usr/local/lib", "/usr/local/sbin", "/usr/local/share",
	"/usr/local/include", "/usr/local/etc", "/usr/local/Cellar", "/usr/local/Homebrew")

var homeDirs = set(".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store", ".config", ".local",
	".mozilla", ".thunderbird", "Documents", "Desktop", "Pictures", "Music", "Videos", "Movies", "Downloads", "Library", "AppData")

// credStores are a home's credential stores: those the sandbox hides, and those storeTools
// write. Every file in one is a secret, and deleting or changing one is refused.
var credStores = append(slices.Clone(sandbox.CredentialStores), ".docker", "Library/Keychains", ".vault-token", ".config/helm/registry",
	".yarnrc", ".yarnrc.yml", ".config/pip", ".pip", ".config/pypoetry/auth.toml", ".terraform.d/credentials.tfrc.json", ".gem/credentials",
	".local/share/gem/credentials", ".config/composer/auth.json", ".composer/auth.json", ".config/helm/repositories.yaml", ".local/share/uv/credentials")

// credStoreAt reports rel (inside a home) in a credential store or, when parents, a directory
// holding one; names are read as Windows reads them (".ssh." and "SSH~1" are .ssh).
func credStoreAt(rel string, parents bool) bool {
	if rel == "" || rel == "." {
		return false
	}
	parts := winNames(rel)
	return slices.ContainsFunc(credStores, func(s string) bool {
		store := strings.Split(s, "/")
		n := min(len(parts), len(store))
		return slices.EqualFunc(parts[:n], store[:n], names) && (len(parts) >= len(store) || parents)
	})
}

// winNames are p's names as Windows reads them: case folded, an NTFS stream (":$DATA") and
// trailing dots and spaces dropped.
func winNames(p string) []string {
	parts := strings.Split(strings.ToLower(filepath.ToSlash(p)), "/")
	for i, part := range parts {
		if stream := strings.IndexByte(part, ':'); stream > 0 {
			part = part[:stream]
		}
		parts[i] = strings.TrimRight(part, ". ")
	}
	return parts
}

// shortName is a Windows 8.3 name: up to six characters, ~N, an extension.
var shortName = lazyRE(`^([^~.]{1,6})~[0-9]+(\.[^.]{0,3})?$`)

// names reports whether part (of winNames) names long, also by its 8.3 short name ("ssh~1").
func names(part, long string) bool {
	long = strings.ToLower(long)
	if part == long {
		return true
	}
	m := shortName().FindStringSubmatch(part)
	return m != nil && strings.HasPrefix(strings.NewReplacer(".", "", " ", "").Replace(long), m[1])
}

func (r *reader) protected(p string, recursive bool) bool {
	if inSystemTree(p) || r.inCredStore(p, recursive) || regProtected(p, recursive) {
		return true
	}
	if !recursive {
		return false
	}
	if p == "/" || topLevel[p] || usrLocal[p] || winRoot.MatchString(strings.ToLower(p)) {
		return true
	}
	if d := path.Dir(p); d == "/Volumes" || d == "/mnt" || d == "/media" || path.Dir(d) == "/media" || d == "/run/media" {
		return true // a mounted disk
	}
	h, rel := r.homeOf(p)
	return h != "" && (rel == "" || !strings.Contains(rel, "/") &&
		slices.ContainsFunc(slices.Collect(maps.Keys(homeDirs)), func(d string) bool { return strings.EqualFold(d, rel) }))
}

// winRoot: a drive (C:\ is /c in the shells of Windows) and its system directories.
var (
	winRoot   = regexp.MustCompile(`^/[a-z](/(windows|program files|program files \(x86\)|programdata|users))?$`)
	winSystem = regexp.MustCompile(`^/[a-z]/windows/`)
)

func inSystemTree(p string) bool {
	return winSystem.MatchString(strings.ToLower(p)) ||
		!slices.ContainsFunc(systemFree, func(f string) bool { return strings.HasPrefix(p, f) || p+"/" == f }) &&
			slices.ContainsFunc(systemTrees, func(t string) bool { return p == t || strings.HasPrefix(p, t+"/") })
}

func (r *reader) inCredStore(p string, parents bool) bool {
	h, rel := r.homeOf(p)
	return h != "" && credStoreAt(rel, parents)
}

// holdsCredStore reports p a directory a credential store may be under: a home, one above it
// (/, /home), one above a store (~/.config), or a store itself.
func (r *reader) holdsCredStore(p string) bool {
	if h, rel := r.homeOf(p); h != "" {
		return rel == "" || credStoreAt(rel, true)
	}
	return slices.ContainsFunc([]string{r.home, "/root", "/var/root", "/home/x", "/Users/x"}, func(h string) bool {
		return p == "/" || strings.HasPrefix(h, p+"/")
	})
}

// homeOf finds the home p is in (yours, root's, a user's); rel is p inside it. Case is folded,
// as macOS and Windows read a path.
func (r *reader) homeOf(p string) (home, rel string) {
	cut := func(p, prefix string) (string, bool) {
		if len(p) < len(prefix) || !strings.EqualFold(p[:len(prefix)], prefix) {
			return "", false
		}
		return p[len(prefix):], true
	}
	for _, h := range []string{r.home, "/root", "/var/root"} {
		if h == "/" || h == "" {
			continue
		}
		if strings.EqualFold(p, h) {
			return h, ""
		}
		if rest, ok := cut(p, h+"/"); ok {
			return h, rest
		}
	}
	wsl := "\x00" // WSL's /mnt/c/Users/NAME
	if strings.HasPrefix(p, "/mnt/") {
		wsl = p[:min(len(p), 6)] + "/Users/"
	}
	for _, base := range []string{"/home/", "/Users/", p[:min(len(p), 2)] + "/Users/", wsl} { // and C:\Users\NAME, /c/Users/NAME
		if rest, ok := cut(p, base); ok && rest != "" {
			name, in, _ := strings.Cut(rest, "/")
			if strings.EqualFold(name, "Shared") && base == "/Users/" {
				continue
			}
			return base + name, in
		}
	}
	if r.home == "/" && p != "/" { // HOME=/: everything else is in it
		return "/", p[1:]
	}
	return "", ""
}

// protectedGlob reports a pattern that can match a protected path: a well-known one, or one
// inside a system tree or a credential store.
func (r *reader) protectedGlob(pattern string, recursive bool) bool {
	prefix := literalPrefix(pattern)
	if prefix != pattern && (inSystemTree(prefix) || r.inCredStore(prefix, false) || regProtected(prefix, false)) {
		return true
	}
	homes := []string{r.home, "/root", "/home/user", "/Users/user", "/c/Users/user"}
	if h, _ := r.homeOf(prefix); h != "" {
		homes = append(homes, h)
	}
	cands := candidates(homes)
	if len(prefix) > 1 && prefix[0] == '/' && (len(prefix) == 2 || prefix[2] == '/') { // a drive: C:\* is /c/*
		for _, d := range []string{"", "/Windows", "/Users", "/Program Files", "/ProgramData", "/Users/user"} {
			cands = append(cands, prefix[:2]+d)
		}
	}
	return slices.ContainsFunc(cands, func(c string) bool { return globMatch(pattern, c) && r.protected(c, recursive) })
}

// credGlob reports a pattern that can name a file in a credential store (~/.ss?/authorized_keys).
func (r *reader) credGlob(pattern string) bool {
	if r.inCredStore(literalPrefix(pattern), false) {
		return true
	}
	parts := strings.Split(strings.ToLower(pattern), "/")
	h, _ := r.homeOf(literalPrefix(pattern))
	for _, home := range []string{r.home, "/root", "/home/user", "/Users/user", "/c/Users/user", h} {
		for _, s := range credStores {
			c := strings.ToLower(path.Join(home, s))
			n := strings.Count(c, "/") + 1
			if home != "" && len(parts) >= n && globMatch(strings.Join(parts[:n], "/"), c) {
				return true
			}
		}
	}
	return false
}

// literalPrefix is the directory part of pattern before its first pattern character.
func literalPrefix(pattern string) string {
	i := strings.IndexAny(pattern, "*?[")
	if i < 0 {
		return pattern
	}
	return path.Dir(pattern[:i] + "x")
}

// candidates are the paths a pattern is tried on: well-known protected ones and homes' own.
func candidates(homes []string) []string {
	out := []string{"/", "/usr/lib", "/usr/bin", "/usr/sbin", "/usr/share", "/usr/include", "/usr/lib64", "/usr/local",
		"/var/lib", "/var/log", "/var/db", "/etc/ssl", "/etc/passwd", "/private/etc", "/home/user", "/Users/user"}
	out = slices.AppendSeq(slices.AppendSeq(out, maps.Keys(topLevel)), maps.Keys(regKeys))
	out = append(out, regTrees...)
	for _, h := range homes {
		out = append(out, h)
		for d := range homeDirs {
			out = append(out, path.Join(h, d))
		}
		for _, s := range credStores {
			out = append(out, path.Join(h, s))
		}
	}
	return out
}

// globMatch is shell pattern matching; a pattern Go cannot read matches what shares its prefix.
func globMatch(pattern, name string) bool {
	ok, err := path.Match(strings.ReplaceAll(pattern, "[!", "[^"), name)
	return ok || err != nil && strings.HasPrefix(name, literalPrefix(pattern))
}
