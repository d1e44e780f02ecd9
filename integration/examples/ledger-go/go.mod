module example.com/paysession-ledger

go 1.26.8

require (
	github.com/paysession/paysession v0.0.0
	github.com/twmb/franz-go v1.22.3
	github.com/twmb/franz-go/pkg/sr v1.8.0
)

require (
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/twmb/avro v1.9.1 // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.1 // indirect
	golang.org/x/sync v0.25.0 // indirect
)

// The example builds against this checkout of the connector; a real
// consumer requires a released version instead.
replace github.com/paysession/paysession => ../../..
