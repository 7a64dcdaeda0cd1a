package adapters

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Registry maps agent names to adapters.
type Registry struct {
	mu       sync.RWMutex
	adapters map[string]Adapter
}

func NewRegistry() *Registry { return &Registry{adapters: map[string]Adapter{}} }

// Register adds or replaces an adapter under its Name.
func (r *Registry) Register(a Adapter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.adapters[a.Name()] = a
}

func (r *Registry) Get(name string) (Adapter, error) {
	r.mu.RLock()
	a, ok := r.adapters[name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownAgent, name, r.Names())
	}
	return a, nil
}

// Has is Get without the error it builds for a missing name.
func (r *Registry) Has(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.adapters[name]
	return ok
}

// Names lists the registered adapters' names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.adapters))
}

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
