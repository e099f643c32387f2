# syntax=docker/dockerfile:1
# Multi-stage build: a static floe binary on a distroless, non-root base
# that carries CA certificates.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/floe ./cmd/floe \
 && /out/floe version

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/floe /usr/local/bin/floe
USER nonroot:nonroot
WORKDIR /home/nonroot
EXPOSE 8080
# Serving on every interface needs an API token: pass FLOE_SERVER_ADMINTOKENS
# (and FLOE_SERVER_ALLOWEDHOSTS for the service's DNS name), or floe refuses
# to start.
ENV FLOE_SERVER_ADDR=0.0.0.0:8080 FLOE_LOG_FORMAT=json
ENTRYPOINT ["/usr/local/bin/floe"]
CMD ["serve"]
