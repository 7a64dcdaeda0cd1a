package config

// Load is LoadTrusting without --trust-project, as the tests load.
func Load(cwd, explicit string) (*Config, error) { return LoadTrusting(cwd, explicit, false) }

// Trust records the project config files that apply in dir, as `hub trust`
// does, and returns them.
func Trust(dir string) ([]string, error) {
	files := ProjectFiles(dir)
	return files, TrustFiles(files)
}
