package chart_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

const chartDir = "../../../deploy/helm/floe"

// objects are the rendered objects by kind, decoded strictly.
type objects struct {
	deployment      *appsv1.Deployment
	service         *corev1.Service
	configMaps      []*corev1.ConfigMap
	pdb             *policyv1.PodDisruptionBudget
	ingress         *networkingv1.Ingress
	serviceAccount  *corev1.ServiceAccount
	serviceMonitors []*serviceMonitor
}

// serviceMonitor is the part of the Prometheus operator's ServiceMonitor
// the chart writes (the type is not in k8s.io/api); decoding is as strict.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port              string                    `json:"port"`
			Path              string                    `json:"path"`
			Interval          string                    `json:"interval"`
			BearerTokenSecret *corev1.SecretKeySelector `json:"bearerTokenSecret,omitempty"`
		} `json:"endpoints"`
	} `json:"spec"`
}

func loadChart(t *testing.T) *chartv2.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	return ch
}

// render renders the chart as `helm template floe -n sync` with vals
// (schema validated) and returns the manifests by template name.
func render(t *testing.T, ch *chartv2.Chart, vals map[string]any) (map[string]string, error) {
	t.Helper()
	rv, err := util.ToRenderValuesWithSchemaValidation(ch, vals,
		common.ReleaseOptions{Name: "floe", Namespace: "sync", IsInstall: true}, common.DefaultCapabilities, false)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, rv)
}

// decode splits the manifests into documents and decodes each strictly
// into its Kubernetes type.
func decode(t *testing.T, manifests map[string]string) objects {
	t.Helper()
	var names []string
	for name := range manifests {
		names = append(names, name)
	}
	sort.Strings(names)
	var o objects
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") || strings.HasPrefix(filepath.Base(name), "_") {
			continue
		}
		for _, doc := range strings.Split(manifests[name], "\n---") {
			if strings.TrimSpace(strings.ReplaceAll(doc, "---", "")) == "" {
				continue
			}
			if err := o.add(doc); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, doc)
			}
		}
	}
	return o
}

func (o *objects) add(doc string) error {
	raw, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return fmt.Errorf("not YAML: %w", err)
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return err
	}
	switch tm.APIVersion + "/" + tm.Kind {
	case "apps/v1/Deployment":
		o.deployment = &appsv1.Deployment{}
		return strict(raw, o.deployment)
	case "v1/Service":
		o.service = &corev1.Service{}
		return strict(raw, o.service)
	case "v1/ConfigMap":
		cm := &corev1.ConfigMap{}
		o.configMaps = append(o.configMaps, cm)
		return strict(raw, cm)
	case "policy/v1/PodDisruptionBudget":
		o.pdb = &policyv1.PodDisruptionBudget{}
		return strict(raw, o.pdb)
	case "networking.k8s.io/v1/Ingress":
		o.ingress = &networkingv1.Ingress{}
		return strict(raw, o.ingress)
	case "v1/ServiceAccount":
		o.serviceAccount = &corev1.ServiceAccount{}
		return strict(raw, o.serviceAccount)
	case "monitoring.coreos.com/v1/ServiceMonitor":
		sm := &serviceMonitor{}
		o.serviceMonitors = append(o.serviceMonitors, sm)
		return strict(raw, sm)
	}
	return fmt.Errorf("unexpected object %s %s", tm.APIVersion, tm.Kind)
}

// strict decodes JSON into v, failing on any field v does not have.
func strict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode strictly into %T: %w", v, err)
	}
	return nil
}

// configMap returns the ConfigMap whose name ends with suffix.
func (o objects) configMap(t *testing.T, name string) *corev1.ConfigMap {
	t.Helper()
	for _, cm := range o.configMaps {
		if cm.Name == name {
			return cm
		}
	}
	t.Fatalf("no ConfigMap %s", name)
	return nil
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
