package codec

import (
	"slices"
	"testing"

	"github.com/paysession/paysession/schemas"
)

// TestKindsAreTheEnum: every symbol of the CommandKind enum is a registered
// kind with its schema, and every registered kind is a symbol, so Kinds is
// both; each kind's command says its own kind and schema.
func TestKindsAreTheEnum(t *testing.T) {
	if len(registry) != len(schemas.Commands) {
		t.Errorf("%d kinds registered, %d symbols in the CommandKind enum", len(registry), len(schemas.Commands))
	}
	for k := range registry {
		if !slices.Contains(Kinds(), k) {
			t.Errorf("registered kind %s is not in Kinds", k)
		}
	}
	for _, k := range Kinds() {
		c := k.New()
		if c == nil {
			t.Errorf("kind %s of the CommandKind enum has no kind_%s.go (register)", k, k)
			continue
		}
		if c.Kind() != k || c.SchemaName() != schemas.Name(k) {
			t.Errorf("kind %s: command says kind %s, schema %s", k, c.Kind(), c.SchemaName())
		}
		if _, err := schemas.Get(c.SchemaName()); err != nil {
			t.Errorf("kind %s: %v", k, err)
		}
	}
}

// TestRegisterRefusesAKindOutsideTheEnum: a kind that is not a symbol of
// the CommandKind enum, or registered twice, stops the program.
func TestRegisterRefusesAKindOutsideTheEnum(t *testing.T) {
	for name, newCmd := range map[string]func() Command{
		"outside the enum": func() Command { return unlisted{} },
		"twice":            func() Command { return new(Capture) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("register did not panic")
				}
			}()
			register(newCmd)
		})
	}
}

// unlisted is a command of a kind the CommandKind enum does not name.
type unlisted struct{ *Capture }

func (unlisted) Kind() CommandKind { return "unlisted" }
