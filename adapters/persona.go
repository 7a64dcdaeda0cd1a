package adapters

// Persona is implemented by adapters that run an agent defined in a file (package
// personas) on another agent: front ends list them after the agents.
type Persona interface {
	Description() string
	BackendName() string
}

func Describe(a Adapter) (description, backend string, ok bool) {
	p, ok := a.(Persona)
	if !ok {
		return "", "", false
	}
	return p.Description(), p.BackendName(), true
}
