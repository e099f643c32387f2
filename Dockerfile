# syntax=docker/dockerfile:1
# floe's container image, for those who build with a container engine. The
# release image is built without one (make image: tools/deploy/cmd/floe-image)
# and is the same image: the same files on an empty base, the same user,
# volume, environment and entrypoint. tools/deploy/image/dockerfile_test.go
# fails when this file and the Go build disagree.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG REVISION=
ARG CREATED=
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION} -X main.buildDate=${CREATED}" \
    -o /out/floe ./cmd/floe \
 && /out/floe version \
 && mkdir -p /out/var/lib/floe /out/home/nonroot /out/tmp

FROM debian:bookworm-slim AS base
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates tzdata && rm -rf /var/lib/apt/lists/*

FROM scratch
ARG VERSION=dev
ARG REVISION=
ARG CREATED=
COPY deploy/image/passwd /etc/passwd
COPY deploy/image/group /etc/group
COPY --from=base /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=base /usr/share/zoneinfo /usr/share/zoneinfo
COPY --from=build --chmod=1777 /out/tmp /tmp
COPY --from=build --chown=65532:65532 --chmod=750 /out/home/nonroot /home/nonroot
COPY --from=build --chown=65532:65532 --chmod=750 /out/var/lib/floe /var/lib/floe
COPY --from=build /out/floe /usr/local/bin/floe
USER 65532:65532
WORKDIR /var/lib/floe
VOLUME ["/var/lib/floe"]
EXPOSE 8080/tcp
# Serving on every interface needs an API token: pass FLOE_SERVER_ADMINTOKENS
# (and FLOE_SERVER_ALLOWEDHOSTS for the service's DNS name), or floe refuses
# to start.
ENV PATH=/usr/local/bin:/usr/bin:/bin
ENV FLOE_SERVER_ADDR=0.0.0.0:8080
ENV FLOE_LOG_FORMAT=json
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
ENV ZONEINFO=/usr/share/zoneinfo
LABEL org.opencontainers.image.title="floe" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/floehq/floe" \
      org.opencontainers.image.created="${CREATED}"
ENTRYPOINT ["/usr/local/bin/floe"]
CMD ["serve"]
