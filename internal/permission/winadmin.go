package permission

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// Windows administration, as data: the registry read as a tree of paths
// (/hkey_local_machine/system/…) so the delete rules and "always" scopes
// apply to its keys as to files; the commands the deny list refuses
// (winDenied); the programs read as the commands they stand for (winReadAs).

// regHives are the registry's hives by every name PowerShell and reg.exe use.
var regHives = map[string]string{
	"hkcu": "hkey_current_user", "hklm": "hkey_local_machine", "hkcr": "hkey_classes_root", "hku": "hkey_users", "hkcc": "hkey_current_config",
	"hkey_current_user": "hkey_current_user", "hkey_local_machine": "hkey_local_machine", "hkey_classes_root": "hkey_classes_root",
	"hkey_users": "hkey_users", "hkey_current_config": "hkey_current_config",
}

// regKeys are the keys a recursive delete must never take: every hive, and
// the keys Windows and every program keep their settings under.
var regKeys = set("/hkey_current_user", "/hkey_local_machine", "/hkey_classes_root", "/hkey_users", "/hkey_current_config",
	"/hkey_current_user/software", "/hkey_current_user/software/microsoft", "/hkey_current_user/software/classes",
	"/hkey_current_user/software/policies", "/hkey_current_user/environment", "/hkey_current_user/control panel",
	"/hkey_current_user/software/microsoft/windows", "/hkey_current_user/software/microsoft/windows/currentversion",
	"/hkey_local_machine/software", "/hkey_local_machine/software/microsoft", "/hkey_local_machine/software/classes",
	"/hkey_local_machine/software/policies", "/hkey_local_machine/software/wow6432node", "/hkey_local_machine/software/microsoft/windows",
	"/hkey_local_machine/software/microsoft/windows nt", "/hkey_local_machine/software/microsoft/windows/currentversion")

// regTrees are the registry's system trees (services, accounts, boot): nothing in them is deleted.
var regTrees = []string{"/hkey_local_machine/system", "/hkey_local_machine/sam", "/hkey_local_machine/security",
	"/hkey_local_machine/bcd00000000", "/hkey_local_machine/hardware"}

var (
	regProvider = lazyRE(`(?i)^(?:microsoft\.powershell\.core/)?registry::/*([a-z_]+)(/.*)?$`)
	regDrive    = lazyRE(`(?i)^(hk[a-z]{1,2}):/*(.*)$`)
	regExeKey   = lazyRE(`(?i)^(?://[.]/)?(hk[a-z_]+)(/.*)?$`)
	regRemote   = lazyRE(`^//[^/?.][^/]*/(.*)$`) // reg.exe's \\HOST\HKLM\…
	certDrive   = lazyRE(`(?i)^(?:(?:microsoft\.powershell\.security/)?certificate::|cert:)/*(.*)$`)
)

// regPath is a registry key as a lower-case path: HKCU:\Software is
// /hkey_current_user/software (with exe, reg.exe's HKCU\Software too).
func regPath(p string, exe bool) (string, bool) {
	if c := certDrive().FindStringSubmatch(p); c != nil { // the certificate provider's stores: Cert:\LocalMachine\Root is /certificate/localmachine/root
		return path.Clean("/certificate/" + strings.ToLower(c[1])), true
	}
	m := regProvider().FindStringSubmatch(p)
	if m == nil {
		m = regDrive().FindStringSubmatch(p)
	}
	if m == nil && exe {
		m = regExeKey().FindStringSubmatch(p)
	}
	if m == nil || regHives[strings.ToLower(m[1])] == "" {
		return p, false
	}
	return path.Clean("/" + regHives[strings.ToLower(m[1])] + "/" + strings.ToLower(m[2])), true
}

// regProtected reports a delete of a registry key the deny list refuses.
func regProtected(p string, recursive bool) bool {
	p = regUser(p)
	return recursive && regKeys[p] || slices.ContainsFunc(regTrees, func(t string) bool { return p == t || strings.HasPrefix(p, t+"/") })
}

// regUser is a key lower case, HKEY_USERS\SID read as that user's HKEY_CURRENT_USER.
func regUser(p string) string {
	p = strings.ToLower(p)
	if rest, ok := strings.CutPrefix(p, "/hkey_users/"); ok && strings.Contains(rest, "/") {
		_, in, _ := strings.Cut(rest, "/")
		p = "/hkey_current_user/" + in
	}
	return p
}

// trustPaths are what Windows trusts, as paths: the execution policy's registry values
// (PowerShell's own and the group policy's, 64- and 32-bit) and the certificate stores whose
// certificates it trusts (roots, intermediates, publishers, the distrusted).
var trustPaths = func() []string {
	var out []string
	for _, hive := range []string{"/hkey_local_machine/software/", "/hkey_current_user/software/"} {
		for _, wow := range []string{"", "wow6432node/"} {
			out = append(out, hive+wow+"microsoft/powershell/1/shellids/microsoft.powershell/executionpolicy",
				hive+wow+"policies/microsoft/windows/powershell/executionpolicy", hive+wow+"policies/microsoft/windows/powershell/enablescripts")
		}
	}
	for _, at := range []string{"localmachine", "currentuser"} {
		for _, store := range []string{"root", "authroot", "ca", "disallowed", "trustedpublisher", "ntauth"} {
			out = append(out, "/certificate/"+at+"/"+store)
		}
	}
	return out
}()

// winTrust reports a change to what Windows trusts (trustPaths): a write or delete in one, a
// delete of a key or store holding one; whatever value or certificate it writes.
func winTrust(k *check) bool {
	targets := k.writtenFiles()
	deletes := slices.Contains([]string{"rm", "truncate", "mv"}, k.c.prog())
	if deletes {
		targets = append(targets, operands(k.args())...)
	}
	return slices.ContainsFunc(targets, func(a arg) bool {
		ps, _ := k.paths(a) // Set-Location Cert:\LocalMachine\Root; Remove-Item X
		return slices.ContainsFunc(append(ps, a.text), func(p string) bool {
			p = regUser(p)
			return slices.ContainsFunc(trustPaths, func(t string) bool {
				glob, _ := path.Match(p, t)
				globIn, _ := path.Match(p, t+"/x")
				return p == t || strings.HasPrefix(p, t+"/") || deletes && strings.HasPrefix(t, p+"/") || a.glob && (glob || globIn)
			})
		})
	})
}

const (
	whyRecovery   = "deleting shadow copies or backups, wiping free space or changing the boot configuration is never allowed (ransomware does it first)"
	whyExecPolicy = "turning off PowerShell's execution policy (Unrestricted, Bypass) or Defender's monitoring is never allowed"
	whyDistro     = "unregistering a WSL distribution (its whole file system) is never allowed"
	whyTrust      = "changing what Windows trusts (the execution policy in the registry, a root or CA certificate store) is never allowed"
	whyInlineHTA  = "running inline script from a javascript:, vbscript: or about: URL (mshta, rundll32) is never allowed"
	whyRemote     = "a command acting on another machine (\\\\HOST, -ComputerName, a PowerShell session) is asked every time"
)

// winDenied: Windows commands the deny list refuses, by program and the
// words that make them destructive (in order, any case, | between
// alternatives; "" any call; !pattern: no such word).
var winDenied = []winDeny{
	{"vssadmin", "delete shadows", whyRecovery},
	{"vssadmin", "resize shadowstorage", whyRecovery},
	{"wmic", "shadowcopy|win32_shadowcopy delete", whyRecovery},
	{"wbadmin", "delete", whyRecovery},
	{"diskshadow", "", whyRecovery},
	{"bcdedit", "/set|/delete|/deletevalue|/import|/create|/copy|/default|/bootsequence|/displayorder|/bootems|/ems|/debug|/bootdebug|/hypervisorsettings|/timeout|/toolsdisplayorder", whyRecovery},
	{"cipher", "/w|/w:*", whyRecovery},
	{"fsutil", "usn deletejournal", whyRecovery},
	{"diskpart", `!/\?`, whyDevice}, // its script (/s FILE, stdin) is one hub cannot read; /? prints help and reads none
	{"diskpart", "/s|-s", whyDevice},
	{"set-executionpolicy", "unrestricted|bypass|0|4 !*process", whyExecPolicy}, // -Scope Process: this PowerShell alone, as powershell -ExecutionPolicy Bypass
	{"set-mppreference", "-disable* true|1", whyExecPolicy},                     // Defender's real-time, script, behaviour monitoring off
	{"set-mppreference", "-disable*:true|-disable*:1", whyExecPolicy},
	{"wsl", "--unregister", whyDistro},
	{"wslconfig", "/unregister|/u", whyDistro},
	{"mshta", "*://*", whyDownload},
	{"mshta", "*javascript:*|*vbscript:*|*about:*", whyInlineHTA},
	{"rundll32", "*javascript:*|*vbscript:*", whyInlineHTA}, // rundll32 javascript:"\..\mshtml,RunHTMLApplication";…
	{"regsvr32", "/i:*://*", whyDownload},
	{"msiexec", "*://*", whyDownload},
}

type winDeny struct{ prog, words, why string }

func winRule(why string) func(k *check) bool {
	return func(k *check) bool {
		return slices.ContainsFunc(winDenied, func(d winDeny) bool {
			return d.why == why && d.prog == k.c.prog() && k.winWords(strings.Fields(d.words))
		})
	}
}

// winWords reports the call's words matching pats (see winDenied); a dynamic word is unclear.
func (k *check) winWords(pats []string) bool {
	args := k.args()
	for _, p := range pats {
		match := func(a arg) bool {
			return slices.ContainsFunc(strings.Split(strings.TrimPrefix(p, "!"), "|"), func(alt string) bool {
				ok, _ := path.Match(strings.ReplaceAll(alt, "/", "\x01"), strings.ReplaceAll(strings.ToLower(a.text), "/", "\x01")) // * across a URL's /
				return ok
			})
		}
		if strings.HasPrefix(p, "!") {
			if slices.ContainsFunc(k.args(), match) {
				return false
			}
			continue
		}
		i := slices.IndexFunc(args, match)
		if i < 0 {
			if anyDynamic(args) {
				k.unknown()
			}
			return false
		}
		args = args[i+1:]
	}
	return true
}

// winReadAs: Windows programs read as the commands they stand for, by verb
// (a word, or a switch in - or / form): $N is the Nth operand after it, $N?
// one that may be missing (then so is the option before it), $@ every
// operand, $K reg.exe's key (or with /v, /ve, /va its value), $? a file
// hub cannot name.
var winReadAs = map[string]string{
	"certutil -urlcache":          "wget -O $2? $1",
	"certutil -verifyctl":         "wget $1",
	"certutil -decode":            "cp $1 $2",
	"certutil -decodehex":         "cp $1 $2",
	"certutil -addstore":          "touch $S", // $S: the store its first operand names (with -delstore, its certificate)
	"certutil -delstore":          "rm $S",
	"certutil -viewdelstore":      "rm $S",
	"certutil -importpfx":         "touch $S",
	"bitsadmin -transfer":         "wget -O $3 $2",
	"bitsadmin -addfile":          "wget -O $3 $2",
	"bitsadmin -setnotifycmdline": "$2 $3?", // the program a job runs as it ends, with its command line
	"reg delete":                  "rm -r $K",
	"reg restore":                 "rm -r $K",
	"reg add":                     "touch $K",
	"reg load":                    "touch $K",
	"reg import":                  "touch $?",
	"regedit":                     "touch $?", // regedit /s FILE imports it as reg import does
	"regini":                      "touch $?",
	"reg copy":                    "cp -r $K $2",
	"reg export":                  "cp $K $2",
	"reg save":                    "cp $K $2",
	"fsutil hardlink create":      "ln $2 $1",
	"fsutil file setzerodata":     "truncate -s 0 $3",
	"sdelete":                     "shred -r $@",
	"sdelete64":                   "shred -r $@",
}

// winValued are winReadAs's programs' switches that take a value.
var winValued = set("/v", "/t", "/d", "/se", "/priority", "-config", "-user", "-p")

func (r *reader) winRead(argv []arg) ([]arg, bool) {
	word := func(i int) string {
		if i >= len(argv) {
			return ""
		}
		w := strings.ToLower(argv[i].text)
		if strings.HasPrefix(w, "/") {
			w = "-" + w[1:]
		}
		return " " + w
	}
	prog := progName(argv[0].text)
	if prog == "reg" && len(argv) > 2 && regRemote().MatchString(winPath(argv[2]).text) {
		r.out.must = whyRemote // reg VERB \\HOST\KEY: another machine's registry
	}
	tmpl, ok := winReadAs[prog]
	verb := 0
	for i := 1; i < len(argv) && !ok && (i == 1 || strings.HasPrefix(word(i), " -")); i++ { // a switch verb may follow others
		if tmpl, ok = winReadAs[prog+word(i)+word(i+1)]; ok {
			verb = i + 1
		} else if tmpl, ok = winReadAs[prog+word(i)]; ok {
			verb = i
		}
	}
	if !ok {
		return nil, false
	}
	var ops []arg
	value := ""
	for i := verb + 1; i < len(argv); i++ {
		t := strings.ToLower(argv[i].text)
		switch {
		case t == "/v" && i+1 < len(argv):
			value = "/" + strings.ToLower(argv[i+1].text)
		case t == "/ve" || t == "/va":
			value = map[string]string{"/ve": "/(default)", "/va": "/*"}[t]
		}
		switch {
		case winValued[t]:
			i++
		case argv[i].dynamic || !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "-") || strings.ContainsAny(t, " \t") || strings.Contains(t[1:], "/"): // /c rd …, /home/x
			ops = append(ops, argv[i])
		}
	}
	var out []arg
	for _, w := range strings.Fields(tmpl) {
		n, opt := strings.CutSuffix(strings.TrimPrefix(w, "$"), "?")
		switch idx, err := strconv.Atoi(n); {
		case w == "$@":
			for _, o := range ops {
				out = append(out, psPath(o, r.home))
			}
		case w == "$?":
			out = append(out, unknown)
		case w == "$S":
			out = append(out, certStore(argv[verb+1:], tmpl == "rm $S"))
		case w == "$K" && len(ops) > 0:
			key := winPath(ops[0]).text
			if m := regRemote().FindStringSubmatch(key); m != nil {
				key = m[1] // the key as this machine's: a delete refused here is refused there
			}
			k, ok := regPath(key, true)
			if !ok && !ops[0].dynamic {
				return nil, false // a remote key (\\HOST\HKLM\…): not this machine's
			}
			out = append(out, arg{text: k + value, dynamic: ops[0].dynamic, glob: value == "/*"})
			if value != "" && out[0].text == "rm" {
				out = slices.Delete(out, 1, 2) // a value, not a key's tree
			}
		case !strings.HasPrefix(w, "$"):
			out = append(out, arg{text: w})
		case err == nil && idx <= len(ops):
			out = append(out, psPath(ops[idx-1], r.home))
		case opt && len(out) > 0 && strings.HasPrefix(out[len(out)-1].text, "-"):
			out = out[:len(out)-1]
		case !opt:
			return nil, false
		}
	}
	return out, true
}

// certStore is the store certutil's words name (-user: the user's; -importpfx: My unless two
// operands), with cert the certificate after it.
func certStore(words []arg, cert bool) arg {
	var ops []arg
	at := "localmachine"
	for _, w := range words {
		switch t := strings.ToLower(w.text); {
		case t == "-user" || t == "/user":
			at = "currentuser"
		case w.dynamic || !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "/"):
			ops = append(ops, w)
		}
	}
	if len(ops) < 2 && !cert {
		ops = []arg{{text: "my"}}
	}
	if len(ops) == 0 {
		return unknown
	}
	a := arg{text: "/certificate/" + at + "/" + strings.ToLower(ops[0].text), dynamic: ops[0].dynamic}
	if cert && len(ops) > 1 {
		a.text += "/" + strings.ToLower(ops[1].text)
		a.dynamic = a.dynamic || ops[1].dynamic
	}
	return a
}

// psSessions are the cmdlets that open or use a session on another machine; with
// psSplatRemote, those a splat (@p) may give -ComputerName or -Session.
var (
	psSessions     = set("enter-pssession", "etsn", "new-pssession", "nsn", "connect-pssession", "cnsn", "receive-pssession", "rcsn", "new-cimsession")
	psSplatRemote  = set("invoke-command", "icm", "copy-item", "cpi", "copy", "cp")
	psRemoteParams = []string{"computername", "session", "cimsession", "hostname", "connectionuri", "vmname", "vmid", "containerid", "tosession", "fromsession"}
)

// psRemote marks a cmdlet that acts on another machine (a session, -ComputerName or -cn in any
// abbreviation PowerShell takes, a splat that may hold one): asked every time.
func (r *reader) psRemote(cmdlet string, words []psWord) {
	remote := psSessions[cmdlet]
	for _, w := range words {
		t := strings.ToLower(w.raw)
		name, _, _ := strings.Cut(strings.TrimLeft(t, "-–—"), ":")
		param := len(name) < len(t) && strings.ContainsRune("-–—", []rune(t)[0])
		remote = remote || strings.HasPrefix(t, "@") && psSplatRemote[cmdlet] ||
			param && (name == "cn" || len(name) >= 3 && slices.ContainsFunc(psRemoteParams, func(p string) bool { return strings.HasPrefix(p, name) }))
	}
	if remote {
		r.out.must = whyRemote
	}
}
