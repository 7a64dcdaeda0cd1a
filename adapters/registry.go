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

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{adapters: map[string]Adapter{}} }

// Register adds or replaces an adapter under its Name.
func (r *Registry) Register(a Adapter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.adapters[a.Name()] = a
}

// Get returns the adapter called name.
func (r *Registry) Get(name string) (Adapter, error) {
	r.mu.RLock()
	a, ok := r.adapters[name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownAgent, name, r.Names())
	}
	return a, nil
}

// Has reports whether an adapter is called name, without the error Get
// builds for a missing one (it lists every name, sorted).
func (r *Registry) Has(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.adapters[name]
	return ok
}

// Names lists registered adapters in sorted order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.adapters))
}
