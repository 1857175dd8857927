package integration

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
					Name         string   `yaml:"name"`
					Image        string   `yaml:"image"`
					Args         []string `yaml:"args"`
					Env          []struct{ Name, Value string }
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
			p.env[e.Name] = e.Value
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
