//go:build linux

package sandbox

const (
	hostTool     = "bwrap"
	installHint  = "install bubblewrap (e.g. apt-get install bubblewrap) to confine the native loop's commands"
	noToolReason = ""
)

func wrap(s *Sandbox, root, path string, args []string) (Wrapped, func(), error) {
	return Wrapped{Path: s.tool, Args: BwrapArgs(s.Policy, root, hostSecrets(root), path, args)}, func() {}, nil
}
