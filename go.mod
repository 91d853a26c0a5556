module github.com/smg-memory/smg

go 1.26.8

require (
	github.com/andybalholm/brotli v1.2.8
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3
	github.com/piprate/json-gold v0.9.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/sergi/go-diff v1.4.0
	github.com/spf13/cobra v1.10.2
	golang.org/x/crypto v0.58.0
	golang.org/x/term v0.47.0
	golang.org/x/text v0.43.0
)

require (
	github.com/cayleygraph/quad v1.3.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/pquerna/cachecontrol v0.2.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
