package tracing

import (
	"context"
	"strings"
	"testing"
)

func TestExporterFollowsTheOTELVariables(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr string
	}{
		{"nothing set: off", nil, false, ""},
		{"endpoint: on", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true, ""},
		{"traces endpoint: on", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true, ""},
		{"otlp exporter: on", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, ""},
		{"none wins over an endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false, ""},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false, ""},
		{"unsupported exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, "OTEL_TRACES_EXPORTER"},
		{"grpc protocol", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"http/protobuf", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Exporter(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Exporter = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestSetupWithoutExporterChangesNothing(t *testing.T) {
	stop, err := Setup(context.Background(), func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	if Enabled() {
		t.Fatal("tracing on without an exporter")
	}
	if _, span := Tracer("x").Start(context.Background(), "s"); span.IsRecording() {
		t.Fatal("a recording span while off")
	}
}

func TestSetupIsSharedAndReleasedByTheLastUser(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}[k]
	}
	stop1, err := Setup(context.Background(), env, nil)
	if err != nil {
		t.Fatal(err)
	}
	stop2, err := Setup(context.Background(), env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !Enabled() {
		t.Fatal("off after Setup with an exporter")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing to flush; do not wait for the unreachable endpoint
	_ = stop1(ctx)
	_ = stop1(ctx) // a second call of the same stop counts once
	if !Enabled() {
		t.Fatal("off while a second user still holds the provider")
	}
	_ = stop2(ctx)
	if Enabled() {
		t.Fatal("still on after the last user stopped")
	}
}
