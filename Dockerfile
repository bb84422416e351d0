# fairbench image for sharded grid runs (deploy/kubernetes, deploy/slurm).
# Build: docker build -t fairbench:latest .

# --- build stage: Go toolchain plus the COIN-OR headers for the cgo solvers.
FROM golang:1.26-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      pkg-config coinor-libclp-dev coinor-libcbc-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -o /out/fairbench ./cmd/fairbench

# --- runtime stage: only the shared libraries the binary links against.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      coinor-libclp1 coinor-libcbc3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/fairbench /usr/local/bin/fairbench
COPY scenarios/default.yaml /opt/fairbench/scenarios/default.yaml
WORKDIR /work
ENTRYPOINT ["fairbench"]
CMD ["version"]
