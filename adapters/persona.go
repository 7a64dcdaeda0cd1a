package adapters

// Persona is implemented by adapters that run an agent defined in a file
// (package personas) on another agent: front ends list them after the
// agents, with what they are for and the agent they run on.
type Persona interface {
	Description() string
	BackendName() string
}

// Describe is a's description and backend when it is a persona.
func Describe(a Adapter) (description, backend string, ok bool) {
	p, ok := a.(Persona)
	if !ok {
		return "", "", false
	}
	return p.Description(), p.BackendName(), true
}
