package signing

import (
	"sync"
	"sync/atomic"
	"testing"
)

// blockingSigner counts the signatures inside it and holds each until
// released.
type blockingSigner struct {
	inside, most atomic.Int32
	entered      chan struct{}
	release      chan struct{}
}

func (b *blockingSigner) Sign([]byte) (string, error) {
	n := b.inside.Add(1)
	for m := b.most.Load(); n > m && !b.most.CompareAndSwap(m, n); m = b.most.Load() {
	}
	b.entered <- struct{}{}
	<-b.release
	b.inside.Add(-1)
	return "sig", nil
}

// TestGateBoundsSignaturesAtOnce: of eight signatures through a gate of
// two slots, shared by two limited signers, never more than two run at
// once, and every one ends.
func TestGateBoundsSignaturesAtOnce(t *testing.T) {
	inner := &blockingSigner{entered: make(chan struct{}), release: make(chan struct{})}
	g := NewGate(2)
	signers := []Signer{g.Limit(inner), g.Limit(inner)}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if sig, err := signers[i%2].Sign(nil); sig != "sig" || err != nil {
				t.Errorf("Sign = %q, %v", sig, err)
			}
		})
	}
	<-inner.entered
	<-inner.entered
	for range 6 { // one out, the next in
		inner.release <- struct{}{}
		<-inner.entered
	}
	inner.release <- struct{}{}
	inner.release <- struct{}{}
	wg.Wait()
	if most := inner.most.Load(); most != 2 {
		t.Errorf("at most %d signatures at once, want 2 (the gate's slots)", most)
	}
}

// TestGateHasAtLeastOneSlot: a gate of zero or fewer slots would block
// every signature forever.
func TestGateHasAtLeastOneSlot(t *testing.T) {
	for _, n := range []int{-1, 0, 1} {
		if got := NewGate(n).Slots(); got != 1 {
			t.Errorf("NewGate(%d).Slots() = %d, want 1", n, got)
		}
	}
	k := keys(t)
	body := []byte(`{"a":1}`)
	sig, err := NewGate(0).Limit(k.a).Sign(body)
	if err != nil || NewRSAVerifier(PKCS1v15, k.a.Public()).Verify(body, sig) != nil {
		t.Errorf("a limited signer does not sign as its signer: %v", err)
	}
}

// TestGatedSignerPrintsNoKey: the limited signer prints what its signer
// prints, which never holds key material.
func TestGatedSignerPrintsNoKey(t *testing.T) {
	k := keys(t)
	s := NewGate(1).Limit(k.a)
	if got, want := s.(interface{ String() string }).String(), k.a.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
