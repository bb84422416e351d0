package deploy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// k8sSchemas holds the JSON Schemas of Kubernetes v1.33.0 for the kinds the
// manifests use; its README says where they come from.
const k8sSchemas = "testdata/kubernetes-v1.33.0"

const manifest = "kubernetes/grid-indexed-job.yaml"

// TestKubernetesManifestSchema validates every document of the manifest
// against the Kubernetes API's JSON Schema of its kind: unknown fields,
// wrong types and missing required fields are errors, as with kubeconform
// -strict.
func TestKubernetesManifestSchema(t *testing.T) {
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	n, err := newK8sValidator(t).validate(b)
	if err != nil {
		t.Fatalf("%s: %v", manifest, err)
	}
	if n != 2 {
		t.Errorf("%s: validated %d documents, want 2 (the ConfigMap and the Job)", manifest, n)
	}
}

// TestKubernetesBrokenManifest checks that the validator rejects broken
// copies of the manifest, each naming the place of the fault.
func TestKubernetesBrokenManifest(t *testing.T) {
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	v := newK8sValidator(t)
	for _, c := range []struct {
		name, old, new string
		want           []string // in the error
	}{
		{"misspelt field", "completionMode: Indexed", "completionsMode: Indexed", []string{"/spec", "completionsMode"}},
		{"string for an integer", "completions: 8", "completions: eight", []string{"/spec/completions", "integer"}},
		{"container without its required name", "- name: fairbench\n          image:", "- image:", []string{"/spec/template/spec/containers/0", "name"}},
		{"Job field in the pod spec", "restartPolicy: Never\n", "restartPolicy: Never\n      backoffLimitPerIndex: 3\n", []string{"/spec/template/spec", "backoffLimitPerIndex"}},
		{"ConfigMap data that is not a string", "data:\n  scenario.yaml: |", "data:\n  n: [1]\n  scenario.yaml: |", []string{"/data/n", "string"}},
		{"unknown API version", "apiVersion: batch/v1", "apiVersion: batch/v9", []string{"no schema", "batch/v9"}},
	} {
		if strings.Count(string(b), c.old) != 1 {
			t.Errorf("%s: %q is not once in the manifest; update the test", c.name, c.old)
			continue
		}
		broken := strings.Replace(string(b), c.old, c.new, 1)
		_, err := v.validate([]byte(broken))
		if err == nil {
			t.Errorf("%s: the validator accepted it", c.name)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}

// TestKubernetesSchemaFiles checks that the schemas are the files their
// README names, unchanged.
func TestKubernetesSchemaFiles(t *testing.T) {
	for name, sum := range map[string]string{
		"_definitions.json": "c6ac7ea7360edb7fd6fbcfabd1fe272d44e30c5d25621b8af889830f5cb21cd3",
		"job-batch-v1.json": "eeb8157764e8dd98747a07658b007c0a14fd01ba1c6baff6d9faeebd36c384a1",
		"configmap-v1.json": "9062084aebe09d7e2114a8d10116155d73516751f3f6cd874480c4826709ae3c",
	} {
		b, err := os.ReadFile(filepath.Join(k8sSchemas, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, want %s (the file of its README)", name, got, sum)
		}
	}
}

// k8sValidator validates Kubernetes objects against the JSON Schema of their
// apiVersion and kind, found by kubeconform's file naming: the kind in lower
// case, the API group's first label (none for the core group), the version,
// e.g. job-batch-v1.json.
type k8sValidator struct {
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// newK8sValidator loads the shared definitions; the schemas of the kinds are
// compiled on first use. References resolve only to the files here: the
// compiler has no loader for http(s).
func newK8sValidator(t *testing.T) *k8sValidator {
	t.Helper()
	defs, err := readJSON(filepath.Join(k8sSchemas, "_definitions.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	// The kinds' schemas refer to /api/_definitions.json from their $id on
	// kubernetes.io.
	if err := c.AddResource("https://kubernetes.io/api/_definitions.json", defs); err != nil {
		t.Fatal(err)
	}
	return &k8sValidator{compiler: c, schemas: map[string]*jsonschema.Schema{}}
}

// validate checks every document of a YAML stream and returns how many it
// checked.
func (v *k8sValidator) validate(stream []byte) (int, error) {
	dec := yaml.NewDecoder(bytes.NewReader(stream))
	n := 0
	for i := 1; ; i++ {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("document %d: %w", i, err)
		}
		if doc == nil {
			continue
		}
		if err := v.validateDoc(doc); err != nil {
			return n, fmt.Errorf("document %d: %w", i, err)
		}
		n++
	}
}

func (v *k8sValidator) validateDoc(doc any) error {
	obj, _ := doc.(map[string]any)
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return errors.New("not a Kubernetes object: no apiVersion or kind")
	}
	s, err := v.schema(apiVersion, kind)
	if err != nil {
		return err
	}
	// Through JSON, as the API server sees it.
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("%s %s: %w", apiVersion, kind, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%s %s: %w", apiVersion, kind, err)
	}
	return nil
}

func (v *k8sValidator) schema(apiVersion, kind string) (*jsonschema.Schema, error) {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	name := strings.ToLower(kind)
	if group != "" {
		name += "-" + strings.Split(group, ".")[0]
	}
	name += "-" + version + ".json"
	if s, ok := v.schemas[name]; ok {
		return s, nil
	}
	path, err := filepath.Abs(filepath.Join(k8sSchemas, name))
	if err != nil {
		return nil, err
	}
	doc, err := readJSON(path)
	if err != nil {
		return nil, fmt.Errorf("no schema for %s %s in %s: %w", apiVersion, kind, k8sSchemas, err)
	}
	if err := v.compiler.AddResource(path, doc); err != nil {
		return nil, err
	}
	s, err := v.compiler.Compile(path)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	v.schemas[name] = s
	return s, nil
}

func readJSON(path string) (any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return jsonschema.UnmarshalJSON(f)
}
