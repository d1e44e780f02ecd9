package pipeline

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// operatorPause is a settable Config.Paused.
type operatorPause struct {
	mu    sync.Mutex
	kinds []string
	known bool
}

func (o *operatorPause) set(known bool, kinds ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.kinds, o.known = kinds, known
}

func (o *operatorPause) get() ([]string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.kinds, o.known
}

// A paused kind is not called while another kind runs; on resume its
// commands run, each once.
func TestRunObeysOperatorPause(t *testing.T) {
	env := newKfakeEnv(t)
	api := &fakeAPI{}
	pause := &operatorPause{}
	var recs []*kgo.Record
	for i := range 10 {
		recs = append(recs, captureRecord(env.topics, fmt.Sprintf("cap-%02d", i), fmt.Sprintf("ps_1%d", i)),
			&kgo.Record{Topic: env.topics.Commands[codec.KindCancel], Key: []byte(fmt.Sprintf("can-%02d", i)),
				Value: fmt.Appendf(nil, `{"session_id":"ps_9%d"}`, i)})
	}
	env.produce(t, recs...)
	stop := env.start(t, api, func(c *Config) { c.Paused = pause.get })
	pause.set(true, string(codec.KindCapture))
	env.results(t, 10, 20*time.Second) // the cancels
	if n := len(api.callsTo("session/capture")); n != 0 {
		t.Fatalf("%d capture calls while capture is paused, want 0", n)
	}
	if n := len(api.callsTo("session/cancel")); n != 10 {
		t.Fatalf("%d cancel calls, want 10", n)
	}
	pause.set(true)
	env.resultsOnceEach(t, recs, 20*time.Second, stop)
	if n := len(api.callsTo("session/capture")); n != 10 {
		t.Errorf("%d capture calls after resume, want 10", n)
	}
}
