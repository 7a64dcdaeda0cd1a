package permission

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission/permtest/plant"
)

const defaultShapeCwd = "/work/project-under-test"

type shapeRow struct {
	line int
	deny bool
	cmd  string
	cwd  string
	// shown is an "always" row's command answered "always"; cmd is the
	// later command it must not cover.
	shown string
	// laterDir is where an "always" row's later command runs (the tool
	// call names it), when not in cwd.
	laterDir string
}

// readShapes reads the "deny|ok<TAB>COMMAND[<TAB>cwd=DIR]" rows of
// testdata/shapes.txt (readShapeFile).
func readShapes(t *testing.T) []shapeRow {
	return slices.DeleteFunc(readShapeFile(t), func(r shapeRow) bool { return r.shown != "" })
}

// readShapeFile reads testdata/shapes.txt, "always" rows included; a
// relative cwd= DIR is under a workspace planted with testdata/planted.txt.
// Its rows are read with no docker credential helper installed (docker
// would log in to one, so a machine's PATH would change the verdict).
func readShapeFile(t *testing.T) []shapeRow {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
	planted := t.TempDir()
	if err := plant.Files("testdata/planted.txt", planted); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/shapes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []shapeRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if cols[0] == "always" && len(cols) == 3 {
			rows = append(rows, shapeRow{line: n, shown: cols[1], cmd: cols[2], cwd: defaultShapeCwd})
			continue
		}
		if dir, ok := strings.CutPrefix(cols[len(cols)-1], "cwd="); ok && cols[0] == "always" && len(cols) == 4 { // the later one runs in a planted DIR
			rows = append(rows, shapeRow{line: n, shown: cols[1], cmd: cols[2], cwd: planted, laterDir: filepath.Join(planted, filepath.FromSlash(dir))})
			continue
		}
		if len(cols) < 2 || len(cols) > 3 || cols[0] != "deny" && cols[0] != "ok" {
			t.Fatalf("shapes.txt:%d: want deny|ok<TAB>COMMAND[<TAB>cwd=DIR], got %q", n, line)
		}
		row := shapeRow{line: n, deny: cols[0] == "deny", cmd: cols[1], cwd: defaultShapeCwd}
		if len(cols) == 3 {
			dir, ok := strings.CutPrefix(cols[2], "cwd=")
			if !ok {
				t.Fatalf("shapes.txt:%d: third column %q is not cwd=DIR", n, cols[2])
			}
			row.cwd = dir
			if !strings.HasPrefix(dir, "/") {
				row.cwd = filepath.Join(planted, filepath.FromSlash(dir))
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func shapeRequest(cmd, cwd string) Request {
	return Request{Tool: "bash", Kind: "execute", Command: cmd, Cwd: cwd}
}

// Every destructive shape of testdata/shapes.txt is refused, every
// harmless one is not.
func TestHardDeny_Shapes(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	rows := readShapes(t)
	deny, ok := 0, 0
	for _, r := range rows {
		why, denied := HardDeny(shapeRequest(r.cmd, r.cwd))
		if denied != r.deny {
			t.Errorf("shapes.txt:%d: %q (cwd %s): denied=%v (%s), want %v", r.line, r.cmd, r.cwd, denied, why, r.deny)
		}
		if r.deny {
			deny++
		} else {
			ok++
		}
	}
	if deny < 250 || ok < 50 {
		t.Errorf("shapes.txt holds %d destructive and %d harmless commands; want at least 250 and 50", deny, ok)
	}
}

// After an "always" for the shown command of each "always" row of
// shapes.txt, that command runs unasked and the row's later one (another
// second-level subcommand) is still asked.
func TestService_AlwaysShapes(t *testing.T) {
	n := 0
	for _, r := range readShapeFile(t) {
		if r.shown == "" {
			continue
		}
		n++
		cwd, err := filepath.Abs(r.cwd) // on Windows, /work/… has no drive: its files would be outside the workspace
		if err != nil {
			t.Fatal(err)
		}
		s := mustNew(t)
		s.Remember(shapeRequest(r.shown, cwd), adapters.AllowAlways)
		if v := s.Check(shapeRequest(r.shown, cwd)); v.Decision != Allow {
			t.Errorf("shapes.txt:%d: the always for %q does not cover itself: %+v", r.line, r.shown, v)
		}
		later := shapeRequest(r.cmd, cwd)
		if r.laterDir != "" {
			later.Dirs = []string{r.laterDir}
		}
		if v := s.Check(later); v.Decision == Allow {
			t.Errorf("shapes.txt:%d: the always for %q covers %q: %+v", r.line, r.shown, r.cmd, v)
		}
	}
	if n < 15 {
		t.Errorf("shapes.txt holds %d always rows; want at least 15", n)
	}
}

// Commands over several lines (here-documents) and what follows a line
// break are read like the rest.
func TestHardDeny_MultiLine(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	tests := []struct {
		cmd  string
		deny bool
	}{
		{"echo hi\nrm -rf /", true},
		{"echo ok # fine\nrm -rf ~", true},
		{"cat <<END\n$(rm -rf ~)\nEND", true},
		{"cat <<'END' | sh\nrm -rf ~\nEND", true},
		{"sh <<END\nrm -rf ~\nEND", true},
		{"bash <<-END\n\trm -rf /\n\tEND", true},
		{"bash -s <<'END'\ncd /\nrm -rf *\nEND", true},
		{"cat > .env <<END\nK=1\nEND", true},
		{"rm -rf ~; (", true}, // bash runs what precedes a syntax error on a later line
		{"cat <<'END' > notes.md\nrm -rf /\nEND", false},
		{"cat <<'END'\ngit push -f origin main\nEND", false},
	}
	for _, tc := range tests {
		if _, denied := HardDeny(shapeRequest(tc.cmd, defaultShapeCwd)); denied != tc.deny {
			t.Errorf("%q: denied=%v, want %v", tc.cmd, denied, tc.deny)
		}
	}
}

// What hub cannot read before the shell runs it is asked every time.
func TestUnclear_Shapes(t *testing.T) {
	tests := []struct {
		cmd     string
		unclear bool
	}{
		{"$X -rf /", true},
		{"$(echo rm) -rf /tmp/x", true},
		{"`echo ls`", true},
		{`eval "$CMD"`, true},
		{`bash -c "$SCRIPT"`, true},
		{`bash -lc "$(printf 'ls')"`, true},
		{`sh -c "$(cat script)"`, true},
		{`echo "$X" | sh`, true},
		{`base64 -d <<< cm0gLXJmIH4K | sh`, true},
		{`cat x.sh | bash`, true},
		{`. "$FILE"`, true},
		{`bash <(echo ls)`, true},
		{`rm -rf "$DIR"/`, true}, // empty DIR deletes /
		{`rm -rf $1`, true},
		{`cd "$X" && rm -rf *`, true},
		{`find "$ROOT" -delete`, true},
		{`cat list | xargs rm -rf`, true},
		{`git push -f`, true}, // the upstream of the current branch: unknown
		{`git push -f origin HEAD`, true},
		{`git push -f origin "$BRANCH"`, true},
		{`env -S "$CMD"`, true},
		{`env -C "$X" rm -rf ./x`, true}, // as cd "$X"; rm -rf ./x
		{`env -C"$X" rm -rf ./x`, true},
		{`env --chdir="$X" rm -rf ./x`, true},
		{`env --chdir "$X" rm -rf x`, true},
		{`env -iC "$X" -- rm -rf x`, true},
		{`sudo env -C "$X" rm -rf ./x`, true},
		{`command env -C "$X" rm -rf ./x`, true},
		{`env -C /tmp env -C "$X" rm -rf x`, true},
		{`sudo -D "$X" rm -rf ./x`, true},
		{`sudo -D"$X" rm -rf ./x`, true},
		{`sudo --chdir="$X" rm -rf ./x`, true},
		{`env -C /tmp rm -rf ./x`, false},
		{`nsenter -t 1 -w rm -rf ./x`, true}, // the target's directory
		{`systemd-run --working-directory "$X" rm -rf x`, true},
		{`echo ./build | xargs -n 1 -I X rm -rf X`, true}, // read two ways: asked
		{`echo ./build | xargs -a list rm -rf`, true},     // the items come from list
		{`echo ./build | xargs --arg-file=list rm -rf`, true},
		{`echo / | xargs -I "$R" rm -rf X`, true},
		{`echo ./build | xargs -n1 -IX rm -rf X`, false},
		{`watch -n 1 -x make`, false},
		{`parallel -I "$R" rm -rf X ::: ./b`, true},
		{`cp x "$D"`, true}, // a write whose destination only the shell knows
		{`cp -t "$D" key`, true},
		{`tee "$(cat f)" < x`, true},
		{`echo KEY > "$X"`, true},
		{`echo KEY >> "$X"/authorized_keys`, true},
		{`tar -xf t.tar -C "$D"`, true},
		{`curl -o "$F" https://x/k`, true},
		{`wget -P "$D" https://x/k`, true},
		{`cp "$F" ~`, true}, // lands in ~ under a name only the shell knows
		{`cd ~ && git clone "$URL"`, true},
		{`cd "$X" && python3 -c "open('.ssh/authorized_keys','a')"`, true},
		{`git --work-tree="$W" checkout main`, true}, // the work tree may be a home
		{`git -C "$D" reset --hard`, true},
		{`git --git-dir=~/.dotfiles checkout`, true}, // its core.worktree may name a home
		{`GIT_DIR=~/.dotfiles git checkout`, true},
		{`docker --config "$D" login`, true}, // the store it writes only the shell knows
		{`gpg --homedir "$(mktemp -d)" --import k`, true},
		{`GNUPGHOME=$(mktemp -d) gpg --import k`, true},
		{`gh "$X" login`, true},
		{`git -C "$D" status`, true}, // git runs what that directory's repository config says (core.fsmonitor, an alias)
		{`cd ../fsmon* && git status`, true},
		{`git --work-tree="$W" diff`, false},
		{`cd "$X" && git checkout main`, true},
		{`cd "$X" && ls`, false},
		// review-pm: a variable the line set to a path is that path, until
		// a builtin sets it from what only the shell knows
		{`D=/tmp/repo; cd "$D" && git status`, false},
		{`D=./sub && git -C "$D" log --oneline -5`, false},
		{`cd "$PWD" && git status`, false},
		{`D=.; read D; git -C "$D" status`, true},
		{`D=.; while read -r D; do git -C "$D" status; done < list`, true},
		{`D=.; printf -v D %s "$X"; cd "$D" && git status`, true},
		{`D=.; printf -vD %s "$X"; cd "$D" && git status`, true},
		{`D=.; mapfile D < f; git -C "$D" status`, true},
		{`D=.; getopts a D; git -C "$D" status`, true},
		{`D=.; unset D; git -C "$D" status`, true},
		{`D=.; . ./env.sh; git -C "$D" status`, true},
		{`D=.; source env.sh && cd "$D" && git status`, true},
		{`D=./build; read -r D; rm -rf "$D"`, true},
		{`D=./build; let D=1; rm -rf "$D"/`, true},
		{`D=.; ((D=5)); git -C "$D" status`, true},
		{`CDPATH=.. cd fsmonitor && git status`, true},
		{`export CDPATH=..; cd fsmonitor; git status`, true},
		{`GIT_CONFIG_GLOBAL=/dev/stdin git status <<< '[core]fsmonitor=rm -rf ~'`, true},
		{`GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null git status`, false},
		{`find .. -name .git -execdir git status \;`, true},
		{`find . -name x -exec git add {} +`, false},
		{`docker run "$IMG"`, false},
		{`cp "$F" ./build/`, false},
		{`git apply --unsafe-paths x.diff`, true}, // git then writes a diff's .git/hooks/… and ../…
		{`git apply x.diff`, false},               // git refuses those itself
		{`git am x.patch`, false},
		{`echo KEY > ./out`, false},
		{"rm -rf 'unclosed", true},
		{"ls -la", false},
		{"go test ./...", false},
		{"rm -rf ./build", false},
		{"echo $HOME", false},
		{`rm -rf "$HOME/.cache/x"`, false},
		{"bash -lc 'go vet ./...'", false},
		{"git push origin feature", false},
		{"git push -f origin feature", false},
		{"X=build; rm -rf $X", false},
		{"sh < script.sh", false},
	}
	for _, tc := range tests {
		if got := Unclear(shapeRequest(tc.cmd, defaultShapeCwd)); got != tc.unclear {
			t.Errorf("Unclear(%q) = %v, want %v", tc.cmd, got, tc.unclear)
		}
	}
}

// A program only the shell knows, given the words with which a credential
// store's program writes its store, is asked every time: no allow rule
// (not even one allowing everything), "always" or grant runs it unasked.
// One given other words is left to the rules, and an allow rule for a
// program never covers one that is only its default (${G:-gpg}).
func TestMustAsk_StoreWordsOfAProgramOnlyTheShellKnows(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	for _, cmd := range []string{`$G --import k.asc`, `"$G" --import k.asc`, `sudo $G --import k.asc`, `env $G --import k.asc`, `$D login`,
		`$N config set //registry.npmjs.org/:_authToken x`, `$H store < c`, `"$AWS" configure set aws_access_key_id AKIA`, `$X auth login`} {
		for _, rule := range []config.PermissionRule{{Tool: "*", Decision: "allow"}, {Tool: "bash", Command: "gpg", Decision: "allow"}} {
			s := mustNew(t, rule)
			req := shapeRequest(cmd, defaultShapeCwd)
			s.Remember(req, adapters.AllowAlways)
			if v, _ := s.Decide(req); v.Decision != Ask || !v.Must {
				t.Errorf("%q under %+v and an always: %+v, want asked every time", cmd, rule, v)
			}
		}
	}
	for _, cmd := range []string{`"$PYTHON" x.py`, `$GIT add .`, `$X status`} {
		if why := MustAsk(shapeRequest(cmd, defaultShapeCwd)); why != "" {
			t.Errorf("%q: must ask (%s), want the rules to decide", cmd, why)
		}
	}
	for _, cmd := range []string{"${G:-ls} -la", "env ${G:-ls} -la"} {
		if commandMatches(shapeRequest(cmd, defaultShapeCwd), "ls", false) {
			t.Errorf("an allow rule for ls covers %q", cmd)
		}
	}
}

// go env -w of a variable naming a program (GOFLAGS, CC) changes every
// later go command: it is asked every time, whatever allows it.
func TestMustAsk_GoEnvWritesAProgramSetting(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	for _, cmd := range []string{"go env -w GOFLAGS=-mod=mod", "go env -w CC=clang", "go env -w=true CXX=clang++", "sudo go env -w GOFLAGS=-tags=x"} {
		s := mustNew(t, config.PermissionRule{Tool: "*", Decision: "allow"})
		req := shapeRequest(cmd, defaultShapeCwd)
		s.Remember(req, adapters.AllowAlways)
		if v, _ := s.Decide(req); v.Decision != Ask || !v.Must {
			t.Errorf("%q after an always under an allow-all rule: %+v, want asked every time", cmd, v)
		}
	}
	for _, cmd := range []string{"go env -w GOPROXY=direct", "go env GOFLAGS", "CC=clang go build ./...", "npm pkg set scripts.test=jest"} {
		if why := MustAsk(shapeRequest(cmd, defaultShapeCwd)); why != "" {
			t.Errorf("%q: must ask (%s), want the rules to decide", cmd, why)
		}
	}
}

// A program named by a file hub cannot read, or by a package or directory
// only the shell or go knows, is asked every time; one hub reads is not.
func TestUnclear_ProgramsFilesNameThatHubCannotRead(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	ws := t.TempDir()
	if err := plant.Files("testdata/planted.txt", ws); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]bool{
		"cd denoc && deno task dev":                     true, // JSON with comments
		`npm --prefix "$D" test`:                        true,
		"go generate example.com/m/...":                 true,
		`go generate "$P"`:                              true,
		"declare -n E=EDITOR; E='rm -rf ~'; crontab -e": true, // a nameref sets another variable
		"declare -x EDITOR=vim; crontab -e":             false,
		"cd npmok && npm test":                          false,
		"cd gogenok && go generate ./...":               false,
		"cd denook && deno task dev":                    false,
		"EDITOR=vim git commit":                         false,
	} {
		if got := Unclear(shapeRequest(cmd, ws)); got != want {
			t.Errorf("%q: unclear=%v, want %v", cmd, got, want)
		}
	}
}

// An "always" for `rm -rf ./build` covers none of the destructive shapes:
// each is still refused outright, not asked and not allowed.
func TestService_AlwaysNeverCoversShapes(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	s := mustNew(t)
	ws := osAbs(defaultShapeCwd) // a workspace the OS calls absolute, or the always is not kept
	s.Remember(shapeRequest("rm -rf ./build", ws), adapters.AllowAlways)
	if v, _ := s.Decide(shapeRequest("rm -rf ./build", ws)); v.Decision != Allow {
		t.Fatalf("the always itself: %+v", v)
	}
	for _, r := range readShapes(t) {
		if !r.deny {
			continue
		}
		v, decided := s.Decide(shapeRequest(r.cmd, r.cwd))
		if !decided || v.Decision != Deny || !v.Hard {
			t.Errorf("shapes.txt:%d: %q after an always for rm -rf ./build: %+v, want the hard deny", r.line, r.cmd, v)
		}
	}
}

// A user's deny rule holds for every spelling of the command; an allow
// rule covers a line only when every command in it matches.
func TestService_RuleSpellings(t *testing.T) {
	s, err := New(config.PermissionsConfig{Rules: []config.PermissionRule{
		{Tool: "bash", Command: "git push", Decision: "deny"},
		{Tool: "bash", Command: "go test", Decision: "allow"},
		{Tool: "bash", Command: "npm run", Decision: "allow"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	pushes := []string{
		"git push",
		"git push origin feature",
		"git  push",
		"/usr/bin/git push",
		"git -C . push",
		"git -C /repo push origin x",
		"git -c k=v push",
		"git --no-pager push",
		"git --git-dir=.git --work-tree=. push",
		"if true; then git push; fi",
		"echo 'git push' | sh",
		"sh <<< 'git push'",
		"bash -c 'git push'",
		"bash -lc \"cd x && git push\"",
		"sudo git push",
		"env GIT_TRACE=1 git push",
		"GIT_TRACE=1 git push",
		"command git push",
		"nohup git push &",
		"timeout 60 git push",
		"go test ./... && git push",
		"false || git push",
		"(git push)",
		"{ git push; }",
		"for r in a b; do git push $r; done",
		"echo $(git push)",
		"eval 'git push'",
		"f(){ git push; }; f",
		"\"git\" push",
		"g\\it push",
		"$'git' 'push'",
		"xargs git push <<< origin",
		"watch git push",
		"busybox sh -c 'git push'",
	}
	for _, cmd := range pushes {
		v, _ := s.Decide(Request{Tool: "bash", Kind: "execute", Command: cmd})
		if v.Decision != Deny {
			t.Errorf("deny rule git push: %q got %+v", cmd, v)
		}
	}
	if len(pushes) < 23 {
		t.Fatalf("only %d spellings", len(pushes))
	}
	for _, cmd := range []string{"git pull", "git status", "echo git push", "git log --grep push", "git commit -m 'git push'"} {
		if v, _ := s.Decide(Request{Tool: "bash", Kind: "execute", Command: cmd}); v.Decision == Deny {
			t.Errorf("deny rule git push caught %q: %+v", cmd, v)
		}
	}
	allowed := map[string]bool{
		"go test ./...":                      true,
		"bash -lc 'go test ./...'":           true,
		"go test ./a && go test ./b":         true,
		"timeout 60 go test ./...":           true,
		"go test ./... && rm -rf build":      false,
		"go test ./...; curl x | sh":         false,
		"go test $(rm -rf build)":            false,
		"go test ./... | tee log":            false,
		"sudo go test ./...":                 false,
		"GOFLAGS=-exec=evil go test ./...":   false,
		"go test ./... & rm -rf build":       false,
		"if go test; then rm -rf x; fi":      false,
		"xargs go test <<< ./...":            false,
		"go testify":                         false,
		"npm run build && npm run lint":      true,
		"npm run build && npm publish":       false,
		"bash -c 'npm run build; npm ci'":    false,
		"echo ok | npm run build":            false,
		"find . -exec go test {} \\;":        false,
		"go test ./... && env -S 'rm -rf x'": false,
	}
	for cmd, want := range allowed {
		v, decided := s.Decide(Request{Tool: "bash", Kind: "execute", Command: cmd})
		if got := decided && v.Decision == Allow; got != want {
			t.Errorf("allow rules go test, npm run: %q allowed=%v (%+v), want %v", cmd, got, v, want)
		}
	}
}

func BenchmarkHardDeny(b *testing.B) {
	req := Request{Tool: "bash", Kind: "execute", Cwd: defaultShapeCwd,
		Command: `cd internal/permission && go test -run 'TestHardDeny' ./... 2>&1 | tee /tmp/out.log && git status --short`}
	for b.Loop() {
		if _, denied := HardDeny(req); denied {
			b.Fatal("denied")
		}
	}
}

// The reader never panics and always ends, whatever the line.
func FuzzHardDeny(f *testing.F) {
	for _, s := range []string{"rm -rf /", "f(){ f|f& };f", "a=$(b <<<\"${c:-$(d)}\") e", "parallel x ::: a ::: b", "cat <<E\n$(x)\nE", "git -c alias.p='!p' p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		HardDeny(Request{Tool: "bash", Kind: "execute", Command: cmd, Cwd: defaultShapeCwd})
		AlwaysScope("bash", cmd)
		commandMatches(shapeRequest(cmd, defaultShapeCwd), "git push", true)
	})
}

// The native loop's delegate_agent reaches the gate as the call the model
// made: it is read by the agent (or session) it names, so a rule naming
// the agent applies and an "always" covers that agent only; one that
// carries a command is read as that command.
func TestRequestOf_DelegateAgentByItsAgent(t *testing.T) {
	s, err := New(config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "delegate_agent", Command: "gemini", Decision: "deny"}}})
	if err != nil {
		t.Fatal(err)
	}
	call := func(input string) Request {
		return RequestOf(adapters.ToolCall{Name: "delegate_agent", Kind: adapters.KindOther, RawInput: []byte(input)}, "/w")
	}
	s.Remember(call(`{"agent":"codex","prompt":"review"}`), adapters.AllowAlways)
	for _, tc := range []struct {
		input, command string
		kind           adapters.ToolKind
		want           Decision // "" : nothing decides
	}{
		{`{"agent":"codex","prompt":"again"}`, "codex", adapters.KindOther, Allow},
		{`{"agent":"claude","prompt":"review"}`, "claude", adapters.KindOther, ""},
		{`{"session":"s-1","prompt":"go on"}`, "s-1", adapters.KindOther, ""},
		{`{"agent":"gemini","prompt":"review"}`, "gemini", adapters.KindOther, Deny},
		{`{"agent":"codex","command":"rm -rf ~"}`, "rm -rf ~", adapters.KindExecute, Deny},
	} {
		req := call(tc.input)
		v, ok := s.Decide(req)
		if req.Command != tc.command || req.Kind != tc.kind || (ok && v.Decision != tc.want) || (!ok && tc.want != "") {
			t.Errorf("%s: command %q kind %q decided %v %q, want %q %q %q", tc.input, req.Command, req.Kind, ok, v.Decision, tc.command, tc.kind, tc.want)
		}
	}
}
