package integration

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/version"
	"go.yaml.in/yaml/v3"
)

// pod is what the Kubernetes example gives the opa container: the
// ConfigMap's and the Secret's files, by the folders they are mounted at,
// and the container's image, arguments and environment.
type pod struct {
	files map[string]map[string]string // mount path → file name → contents
	image string
	args  []string
	env   map[string]string
}

// k8sObject is the part of a Kubernetes object the example uses.
type k8sObject struct {
	Kind       string                `yaml:"kind"`
	Metadata   struct{ Name string } `yaml:"metadata"`
	Data       map[string]string     `yaml:"data"`
	StringData map[string]string     `yaml:"stringData"`
	Spec       struct {
		Template struct {
			Spec struct {
				Containers []struct {
					Name      string   `yaml:"name"`
					Image     string   `yaml:"image"`
					Args      []string `yaml:"args"`
					Env       []k8sEnv `yaml:"env"`
					Resources struct {
						Limits map[string]string `yaml:"limits"`
					} `yaml:"resources"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name      string                 `yaml:"name"`
					ConfigMap *struct{ Name string } `yaml:"configMap"`
					Secret    *struct {
						SecretName string `yaml:"secretName"`
					} `yaml:"secret"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// k8sEnv is one variable of a container: a value, or one taken from the
// container's resources (the only source the example uses).
type k8sEnv struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom *struct {
		ResourceFieldRef *struct {
			Resource string `yaml:"resource"`
			Divisor  string `yaml:"divisor"`
		} `yaml:"resourceFieldRef"`
	} `yaml:"valueFrom"`
}

// readPod reads the example's objects: a ConfigMap, a Secret and a
// Deployment whose opa container mounts them.
func readPod(t *testing.T, text string) *pod {
	t.Helper()
	objects := map[string]*k8sObject{} // by kind/name
	var deployment *k8sObject
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the Kubernetes example: %v", err)
		}
		objects[o.Kind+"/"+o.Metadata.Name] = &o
		if o.Kind == "Deployment" {
			deployment = &o
		}
	}
	if deployment == nil {
		t.Fatal("the Kubernetes example has no Deployment")
	}
	spec := deployment.Spec.Template.Spec
	p := &pod{files: map[string]map[string]string{}, env: map[string]string{}}
	for _, c := range spec.Containers {
		if c.Name != "opa" {
			continue
		}
		p.image, p.args = c.Image, c.Args
		for _, e := range c.Env {
			p.env[e.Name] = envValue(t, e, c.Resources.Limits)
		}
		for _, m := range c.VolumeMounts {
			for _, v := range spec.Volumes {
				switch {
				case v.Name != m.Name:
				case v.ConfigMap != nil:
					p.files[m.MountPath] = objects["ConfigMap/"+v.ConfigMap.Name].Data
				case v.Secret != nil:
					p.files[m.MountPath] = objects["Secret/"+v.Secret.SecretName].StringData
				}
			}
			if p.files[m.MountPath] == nil {
				t.Fatalf("the opa container mounts %s from a volume the example does not define", m.MountPath)
			}
		}
	}
	if p.image == "" {
		t.Fatal("the Kubernetes example has no opa container")
	}
	return p
}

// envValue is what the kubelet gives a variable: its value, or a CPU
// limit divided by the divisor and rounded up, as an integer (so that
// GOMAXPROCS from limits.cpu is at least 1). Any other source fails the
// test: the test must not start OPA with a value the cluster would not
// give it.
func envValue(t *testing.T, e k8sEnv, limits map[string]string) string {
	t.Helper()
	if e.ValueFrom == nil {
		return e.Value
	}
	ref := e.ValueFrom.ResourceFieldRef
	if ref == nil || ref.Resource != "limits.cpu" {
		t.Fatalf("the opa container's %s: only a resourceFieldRef of limits.cpu is read here", e.Name)
	}
	limit, ok := limits["cpu"]
	if !ok {
		t.Fatalf("the opa container's %s reads limits.cpu, which it does not set", e.Name)
	}
	divisor := ref.Divisor
	if divisor == "" {
		divisor = "1"
	}
	l, d := milliCPU(t, limit), milliCPU(t, divisor)
	return strconv.FormatInt((l+d-1)/d, 10)
}

// milliCPU reads a CPU quantity as Kubernetes writes one ("2", "1.5",
// "500m") in thousandths of a CPU.
func milliCPU(t *testing.T, q string) int64 {
	t.Helper()
	if m, ok := strings.CutSuffix(q, "m"); ok {
		n, err := strconv.ParseInt(m, 10, 64)
		if err != nil || n <= 0 {
			t.Fatalf("CPU quantity %q", q)
		}
		return n
	}
	f, err := strconv.ParseFloat(q, 64)
	if err != nil || f <= 0 {
		t.Fatalf("CPU quantity %q", q)
	}
	return int64(math.Ceil(f * 1000))
}

// writeVolumes writes the mounted files into folders of a temporary one,
// each Secret file named in secrets taking that file's contents (the
// example shows "..." for a key), and returns the folder of each mount.
func (p *pod) writeVolumes(t *testing.T, secrets map[string]string) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	for mount, files := range p.files {
		dir := t.TempDir()
		for name, text := range files {
			if src, ok := secrets[name]; ok {
				text = string(readFile(t, src))
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		dirs[mount] = dir
	}
	return dirs
}

// localArgs are the container's arguments for an OPA started here: the
// mounted paths made the folders writeVolumes wrote, and no --addr (the
// test gives its own); "run" and "--server" are the test's too.
func (p *pod) localArgs(t *testing.T, dirs map[string]string) []string {
	t.Helper()
	if len(p.args) < 2 || p.args[0] != "run" || p.args[1] != "--server" {
		t.Fatalf("the opa container's args %q do not start a server", p.args)
	}
	var out []string
	for _, a := range p.args[2:] {
		if strings.HasPrefix(a, "--addr") {
			continue
		}
		for mount, dir := range dirs {
			a = strings.ReplaceAll(a, mount+"/", dir+"/")
		}
		out = append(out, a)
	}
	return out
}

// opaVersion is the version of the OPA this project pins (go.mod's
// require and tool lines).
func opaVersion(t *testing.T) string {
	t.Helper()
	return version.Version
}
