module github.com/floehq/floe/tools/deploy

go 1.26.8

require (
	github.com/floehq/floe v0.0.0
	github.com/google/go-containerregistry v0.22.1
)

require (
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	golang.org/x/sync v0.25.0 // indirect
)

replace github.com/floehq/floe => ../..
