module example.com/paysession-ledger

go 1.26.8

require (
	github.com/paysession/paysession v0.0.0
	github.com/twmb/franz-go v1.22.2
	github.com/twmb/franz-go/pkg/sr v1.8.0
)

require (
	github.com/go-viper/mapstructure/v2 v2.4.0 // indirect
	github.com/hamba/avro/v2 v2.31.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/sethvargo/go-envconfig v1.4.3 // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.0 // indirect
)

// The example builds against this checkout of the connector; a real
// consumer requires a released version instead.
replace github.com/paysession/paysession => ../../..
