// Package chart checks floe's Helm chart (deploy/helm/floe) without a
// cluster: its tests render the chart with Helm's own Go SDK for several
// value sets, lint it, decode every object strictly into the Kubernetes
// API types (an unknown field fails), load the rendered floe.yaml with
// floe's own configuration loader, and hold the chart to what a platform
// team expects of it (K1–K8):
//
//   - K1 no secret in a ConfigMap: every token, connection secret, Pinot
//     header and deep-store key in floe.yaml is a ${env:…}, ${file:…} or
//     ${NAME} reference; the Redis URL comes from a Secret.
//   - K2 liveness (/livez), readiness (/healthz: store down or draining)
//     and startup probes on the API port.
//   - K3 a PodDisruptionBudget with more than one replica, letting at most
//     replicas-1 go; none with one replica (it would block node drains).
//   - K4 pod and container security: non-root 65532, no privilege
//     escalation, read-only root filesystem, every capability dropped,
//     writable emptyDirs only at /var/lib/floe and /tmp.
//   - K5 the pod's termination grace leaves floe's drain grace plus time
//     to close.
//   - K6 the Service and the PDB select the pods; the image defaults to
//     the chart's appVersion.
//   - K7 the Grafana dashboard ConfigMap is docs/grafana-dashboard.json.
//   - K8 an Ingress only with the API token required and /metrics
//     protected; the ingress host is an allowed Host.
package chart
