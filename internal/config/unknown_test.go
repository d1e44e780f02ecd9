package config_test

import (
	"fmt"
	"testing"

	"github.com/paysession/paysession/internal/config"
)

func TestUnknown(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  []string
	}{
		{"known and foreign names pass", []string{"PAYSESSION_KAFKA_BROKERS", "PAYSESSION_REGISTRY_PASSWORD_FILE", "HOME", "OTEL_SERVICE_NAME"}, nil},
		{"a misspelling names the variable", []string{"PAYSESSION_KAFKA_BROKER"},
			[]string{"PAYSESSION_KAFKA_BROKER: not a variable of the connector (did you mean PAYSESSION_KAFKA_BROKERS?)"}},
		{"a transposition too", []string{"PAYSESSION_LOG_LVEEL"},
			[]string{"PAYSESSION_LOG_LVEEL: not a variable of the connector (did you mean PAYSESSION_LOG_LEVEL?)"}},
		{"nothing near", []string{"PAYSESSION_FROBNICATE_EVERYTHING"},
			[]string{"PAYSESSION_FROBNICATE_EVERYTHING: not a variable of the connector"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := config.Unknown(tt.names)
			if fmt.Sprint(errs) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v, want %v", errs, tt.want)
			}
		})
	}
}
