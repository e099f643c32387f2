package chart_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/floehq/floe/internal/config"
)

// required are the values every install sets (the chart refuses to render
// without them).
func required() map[string]any {
	return map[string]any{
		"auth":  map[string]any{"existingSecret": "floe-auth"},
		"redis": map[string]any{"existingSecret": "floe-redis"},
	}
}

// valueSets are the installs the chart is checked with: the defaults, and
// what operators change first.
func valueSets() map[string]map[string]any {
	with := func(extra map[string]any) map[string]any {
		v := required()
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	return map[string]map[string]any{
		"defaults":    required(),
		"one replica": with(map[string]any{"replicaCount": 1}),
		"five replicas, two may go": with(map[string]any{"replicaCount": 5,
			"podDisruptionBudget": map[string]any{"enabled": true, "maxUnavailable": 2}}),
		"redis subchart": with(map[string]any{"redis": map[string]any{"enabled": true}}),
		"ingress, monitoring, catalog secrets": with(map[string]any{
			"ingress": map[string]any{"enabled": true, "host": "floe.data.example.com", "className": "nginx", "tlsSecretName": "floe-tls"},
			"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}},
			"auth":    map[string]any{"existingSecret": "floe-auth", "readTokenKey": "read-token"},
			"extraEnv": []any{map[string]any{"name": "LAKE_TOKEN",
				"valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "lake", "key": "token"}}}},
			"secretMounts": []any{map[string]any{"name": "glue", "secretName": "glue-keys"}},
			"config": map[string]any{
				"pinot": map[string]any{"controllerURL": "http://pinot-controller.pinot:9000",
					"headers": map[string]any{"Authorization": "Basic ${PINOT_AUTH}"}},
				"security": map[string]any{"secretEnv": []any{"LAKE_TOKEN"}, "secretFileRoots": []any{"/var/run/secrets/floe"}},
				"connections": map[string]any{"lake": map[string]any{"type": "rest",
					"props":   map[string]any{"uri": "https://catalog.example.com"},
					"secrets": map[string]any{"token": "${env:LAKE_TOKEN}", "credential": "${file:/var/run/secrets/floe/glue/key}"}}},
			},
		}),
	}
}

// Every value set renders, decodes strictly into the Kubernetes types and
// meets K1–K8; floe's own loader accepts the rendered floe.yaml.
func TestChart_RendersValidObjects(t *testing.T) {
	ch := loadChart(t)
	for name, vals := range valueSets() {
		t.Run(name, func(t *testing.T) {
			manifests, err := render(t, ch, vals)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			o := decode(t, manifests)
			if o.deployment == nil || o.service == nil {
				t.Fatal("no Deployment or Service rendered")
			}
			replicas := int32(2)
			if r, ok := vals["replicaCount"].(int); ok {
				replicas = int32(r)
			}
			if got := *o.deployment.Spec.Replicas; got != replicas {
				t.Errorf("Deployment replicas %d, want %d", got, replicas)
			}
			cfg := checkConfigMap(t, o)
			checkProbes(t, o)
			checkPDB(t, o, replicas)
			checkSecurity(t, o)
			checkGrace(t, o, cfg)
			checkSelectors(t, o, ch.Metadata.AppVersion)
			checkDashboard(t, o)
			checkIngress(t, o, cfg)
		})
	}
}

// K1: floe.yaml holds references only, and loads with floe's loader
// given the pod's environment and the mounted token files.
func checkConfigMap(t *testing.T, o objects) config.Config {
	t.Helper()
	text := o.configMap(t, "floe").Data["floe.yaml"]
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("floe.yaml: %v", err)
	}
	for path, v := range secretFields(doc) {
		if !isReference(v) {
			t.Errorf("K1: floe.yaml %s holds a value, not a ${env:…}/${file:…}/${NAME} reference: the ConfigMap would carry a secret", path)
		}
	}
	dir := t.TempDir()
	text = strings.ReplaceAll(text, "/var/run/secrets/floe", dir)
	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"admin-token", "read-token"} {
		if err := os.WriteFile(filepath.Join(dir, "auth", key), []byte(strings.Repeat(key[:1], 32)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "floe.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, podEnv(t, o))
	if err != nil {
		t.Fatalf("floe does not accept the rendered floe.yaml: %v\n%s", err, text)
	}
	if cfg.Store.Redis.URL == "" || len(cfg.Server.AdminTokens) == 0 {
		t.Errorf("K1: the pod's floe has no Redis URL (%v) or no admin token", cfg.Store.Redis.URL != "")
	}
	if !strings.HasPrefix(cfg.Watcher.WorkDir, "/var/lib/floe/") {
		t.Errorf("K4: watcher.workDir %q is not on the data volume", cfg.Watcher.WorkDir)
	}
	return cfg
}

// secretFields returns the fields of floe.yaml that hold secrets.
func secretFields(doc map[string]any) map[string]string {
	out := map[string]string{}
	get := func(m any, keys ...string) any {
		for _, k := range keys {
			mm, ok := m.(map[string]any)
			if !ok {
				return nil
			}
			m = mm[k]
		}
		return m
	}
	for _, f := range []string{"adminTokens", "readTokens"} {
		list, _ := get(doc, "server", f).([]any)
		for i, v := range list {
			out["server."+f+"["+string(rune('0'+i))+"]"], _ = v.(string)
		}
	}
	if url, ok := get(doc, "store", "redis", "url").(string); ok {
		out["store.redis.url"] = url
	}
	for _, k := range []string{"secretAccessKey", "sessionToken", "accessKeyID"} {
		if v, ok := get(doc, "pinot", "deepStore", k).(string); ok {
			out["pinot.deepStore."+k] = v
		}
	}
	headers, _ := get(doc, "pinot", "headers").(map[string]any)
	for k, v := range headers {
		out["pinot.headers."+k], _ = v.(string)
	}
	conns, _ := doc["connections"].(map[string]any)
	for name, c := range conns {
		secrets, _ := get(c, "secrets").(map[string]any)
		for k, v := range secrets {
			out["connections."+name+".secrets."+k], _ = v.(string)
		}
	}
	return out
}

var reference = regexp.MustCompile(`\$\{(env:|file:)?[^}]+\}`)

// isReference: the value is empty or names where the secret comes from.
func isReference(v string) bool {
	return v == "" || reference.MatchString(v)
}

// podEnv is the container's environment with every Secret-backed value
// replaced by a stand-in, as the kubelet would fill it in.
func podEnv(t *testing.T, o objects) []string {
	t.Helper()
	var env []string
	vals := map[string]string{}
	for _, e := range o.deployment.Spec.Template.Spec.Containers[0].Env {
		v := e.Value
		switch {
		case e.ValueFrom != nil && strings.Contains(strings.ToLower(e.Name), "redis_url"):
			v = "redis://:pw@redis:6379/0"
		case e.ValueFrom != nil:
			v = "from-secret-" + e.Name
		}
		v = regexp.MustCompile(`\$\(([A-Z_]+)\)`).ReplaceAllStringFunc(v, func(m string) string { return vals[m[2:len(m)-1]] })
		vals[e.Name] = v
		if e.Name != "FLOE_CONFIG" {
			env = append(env, e.Name+"="+v)
		}
	}
	return append(env, "PINOT_AUTH=stand-in")
}

// K2: probes on the API port: liveness reads no store, readiness does and
// fails while draining.
func checkProbes(t *testing.T, o objects) {
	t.Helper()
	c := o.deployment.Spec.Template.Spec.Containers[0]
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"liveness", c.LivenessProbe, "/livez"}, {"readiness", c.ReadinessProbe, "/healthz"}, {"startup", c.StartupProbe, "/livez"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("K2: no %s probe", p.name)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port != intstr.FromString("http") {
			t.Errorf("K2: %s probe on %s port %s, want %s on http", p.name, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path)
		}
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 8080 {
		t.Errorf("K2: container ports %+v, want http 8080", c.Ports)
	}
}

// K3: a PDB letting at most replicas-1 pods go, none with one replica.
func checkPDB(t *testing.T, o objects, replicas int32) {
	t.Helper()
	if replicas == 1 {
		if o.pdb != nil {
			t.Error("K3: a PodDisruptionBudget with one replica blocks every node drain")
		}
		return
	}
	if o.pdb == nil {
		t.Fatalf("K3: no PodDisruptionBudget for %d replicas", replicas)
	}
	mu := o.pdb.Spec.MaxUnavailable
	if o.pdb.Spec.MinAvailable != nil || mu == nil || mu.Type != intstr.Int || mu.IntVal < 1 || mu.IntVal > replicas-1 {
		t.Errorf("K3: PDB minAvailable %v maxUnavailable %v, want maxUnavailable in 1..%d", o.pdb.Spec.MinAvailable, mu, replicas-1)
	}
}

// K4: non-root, no privilege escalation, read-only root, no capability;
// only the data volume and /tmp are writable.
func checkSecurity(t *testing.T, o objects) {
	t.Helper()
	pod := o.deployment.Spec.Template.Spec
	c := pod.Containers[0]
	ps, cs := pod.SecurityContext, c.SecurityContext
	if ps == nil || cs == nil {
		t.Fatal("K4: no securityContext")
	}
	nonRoot := (ps.RunAsNonRoot != nil && *ps.RunAsNonRoot) || (cs.RunAsNonRoot != nil && *cs.RunAsNonRoot)
	switch {
	case !nonRoot:
		t.Error("K4: runAsNonRoot is not set")
	case ps.RunAsUser == nil || *ps.RunAsUser != 65532:
		t.Errorf("K4: runAsUser %v, want the image's 65532", ps.RunAsUser)
	case cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation:
		t.Error("K4: allowPrivilegeEscalation is not false")
	case cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem:
		t.Error("K4: readOnlyRootFilesystem is not true")
	case cs.Capabilities == nil || !slices.Equal(cs.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(cs.Capabilities.Add) > 0:
		t.Errorf("K4: capabilities %+v, want drop [ALL] and none added", cs.Capabilities)
	case cs.Privileged != nil && *cs.Privileged:
		t.Error("K4: privileged")
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	writable := map[string]bool{}
	for _, m := range c.VolumeMounts {
		v := volumes[m.Name]
		switch {
		case v.Secret != nil || v.ConfigMap != nil:
			if !m.ReadOnly {
				t.Errorf("K4: %s (a Secret or ConfigMap) is mounted writable at %s", m.Name, m.MountPath)
			}
		case v.EmptyDir != nil:
			writable[m.MountPath] = true
		default:
			t.Errorf("K4: volume %s at %s is neither an emptyDir nor a Secret or ConfigMap", m.Name, m.MountPath)
		}
	}
	if !writable["/var/lib/floe"] || !writable["/tmp"] || len(writable) != 2 {
		t.Errorf("K4: writable mounts %v, want /var/lib/floe and /tmp", writable)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("K4: the pod mounts a service account token floe never uses")
	}
}

// K5: the pod's grace covers floe's drain grace plus time to close, and
// stays at or under Kubernetes' default of 30 s by default.
func checkGrace(t *testing.T, o objects, cfg config.Config) {
	t.Helper()
	pod := o.deployment.Spec.Template.Spec
	if pod.TerminationGracePeriodSeconds == nil {
		t.Fatal("K5: no terminationGracePeriodSeconds")
	}
	grace := *pod.TerminationGracePeriodSeconds
	if drain := int64(cfg.Watcher.DrainGrace.Seconds()); grace < drain+8 {
		t.Errorf("K5: terminationGracePeriodSeconds %d leaves less than 8 s after watcher.drainGrace %ds", grace, drain)
	}
}

// K6: the Service and PDB select the pods; the image is the chart's.
func checkSelectors(t *testing.T, o objects, appVersion string) {
	t.Helper()
	pod := o.deployment.Spec.Template
	matches := func(sel map[string]string) bool {
		if len(sel) == 0 {
			return false
		}
		for k, v := range sel {
			if pod.Labels[k] != v {
				return false
			}
		}
		return true
	}
	if !matches(o.service.Spec.Selector) || !matches(o.deployment.Spec.Selector.MatchLabels) {
		t.Errorf("K6: the Service (%v) or the Deployment (%v) does not select the pods (%v)",
			o.service.Spec.Selector, o.deployment.Spec.Selector.MatchLabels, pod.Labels)
	}
	if o.pdb != nil && !matches(o.pdb.Spec.Selector.MatchLabels) {
		t.Errorf("K6: the PDB selects %v, not the pods", o.pdb.Spec.Selector.MatchLabels)
	}
	if o.service.Spec.Ports[0].TargetPort != intstr.FromString("http") {
		t.Errorf("K6: the Service targets %s", o.service.Spec.Ports[0].TargetPort.String())
	}
	if img := pod.Spec.Containers[0].Image; !strings.HasSuffix(img, ":"+appVersion) {
		t.Errorf("K6: image %s, want the chart's appVersion %s", img, appVersion)
	}
}

// K7: the dashboard ConfigMap carries docs/grafana-dashboard.json.
func checkDashboard(t *testing.T, o objects) {
	t.Helper()
	want := strings.TrimRight(string(readFile(t, "../../../docs/grafana-dashboard.json")), "\n")
	if got := o.configMap(t, "floe-dashboard").Data["floe.json"]; got != want {
		t.Errorf("K7: the dashboard ConfigMap (%d bytes) is not docs/grafana-dashboard.json (%d bytes)", len(got), len(want))
	}
}

// K8: an Ingress goes with tokens required, /metrics protected, its host
// allowed, and a ServiceMonitor then sends a token.
func checkIngress(t *testing.T, o objects, cfg config.Config) {
	t.Helper()
	if o.ingress == nil {
		return
	}
	host := o.ingress.Spec.Rules[0].Host
	if len(cfg.Server.AdminTokens) == 0 || !cfg.Server.ProtectMetrics || !slices.Contains(cfg.Server.AllowedHosts, host) {
		t.Errorf("K8: with an Ingress: tokens %d, protectMetrics %v, allowedHosts %v (want %s)",
			len(cfg.Server.AdminTokens), cfg.Server.ProtectMetrics, cfg.Server.AllowedHosts, host)
	}
	for _, sm := range o.serviceMonitors {
		if sm.Spec.Endpoints[0].BearerTokenSecret == nil {
			t.Error("K8: /metrics asks for a token, but the ServiceMonitor sends none")
		}
	}
}

// Installs the chart must refuse, each with an error naming the value.
func TestChart_RefusesBadValues(t *testing.T) {
	ch := loadChart(t)
	set := func(f func(map[string]any)) map[string]any {
		v := required()
		f(v)
		return v
	}
	cases := []struct {
		name string
		vals map[string]any
		want string
	}{
		{"no API token secret", set(func(v map[string]any) { v["auth"] = map[string]any{"existingSecret": ""} }), "auth.existingSecret"},
		{"no redis", set(func(v map[string]any) { v["redis"] = map[string]any{"existingSecret": ""} }), "redis.existingSecret"},
		{"zero replicas", set(func(v map[string]any) { v["replicaCount"] = 0 }), "replicaCount"},
		{"redis URL in the config", set(func(v map[string]any) {
			v["config"] = map[string]any{"store": map[string]any{"redis": map[string]any{"url": "redis://:hunter2@r:6379"}}}
		}), "store"},
		{"grace shorter than the drain", set(func(v map[string]any) { v["terminationGracePeriodSeconds"] = 25 }), "terminationGracePeriodSeconds"},
		{"unknown ingress field", set(func(v map[string]any) { v["ingress"] = map[string]any{"hosts": []any{"x"}} }), "hosts"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render(t, ch, tc.vals)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("render: %v, want an error naming %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("the error repeats the secret: %v", err)
			}
		})
	}
}

// helm lint passes with the required values: no error, no warning but
// the Bitnami Redis subchart not being vendored (it is fetched by `helm
// dependency update` only when redis.enabled is used).
func TestChart_Lint(t *testing.T) {
	dir, err := filepath.Abs(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	l := lint.RunAll(dir, required(), "sync")
	for _, m := range l.Messages {
		if m.Severity < support.WarningSev {
			continue
		}
		if strings.Contains(m.Err.Error(), "missing") && strings.Contains(m.Err.Error(), "redis") {
			t.Logf("allowed: %s", m)
			continue
		}
		t.Errorf("lint: %s", m)
	}
}

// The chart deploys the floe it is versioned with: version and appVersion
// are one release, and once CHANGELOG.md names a release, the newest one.
func TestChart_VersionMatchesRelease(t *testing.T) {
	ch := loadChart(t)
	if ch.Metadata.Version != ch.Metadata.AppVersion {
		t.Errorf("Chart.yaml version %s, appVersion %s: a release sets both", ch.Metadata.Version, ch.Metadata.AppVersion)
	}
	m := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+[^\]]*)\]`).FindStringSubmatch(string(readFile(t, "../../../CHANGELOG.md")))
	if m != nil && m[1] != ch.Metadata.AppVersion {
		t.Errorf("CHANGELOG.md's newest release is %s, the chart deploys %s", m[1], ch.Metadata.AppVersion)
	}
}
