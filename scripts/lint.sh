#!/usr/bin/env bash
# go vet, gofmt and staticcheck (pinned), plus floe's grep rules, which the
# internal/lint test enforces as well.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .cache

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [[ -n $unformatted ]]; then
	echo "gofmt wants to change:" $unformatted >&2
	exit 1
fi

echo "== go vet"
go vet -tags integration ./...
(cd tools/deploy && go vet -tags integration ./...)

echo "== staticcheck"
sc="$(go env GOPATH)/bin/staticcheck"
want=0.8.2
if [[ ! -x $sc ]] || ! "$sc" -version 2>/dev/null | grep -q "$want"; then
	GOFLAGS= go install "honnef.co/go/tools/cmd/staticcheck@v$want"
fi
"$sc" -tags integration ./...
