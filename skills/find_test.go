package skills

// Find is FindTrusting without --trust-project, as the tests look skills up.
func Find(cwd, userDir, name string) (Skill, error) { return FindTrusting(cwd, userDir, name, false) }
