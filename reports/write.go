package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"fairbench/internal/atomicfile"
)

// ManifestName is the file that marks a folder as a fairbench report (and
// lists what it holds); Write replaces only such folders, or empty ones.
const ManifestName = "report.json"

// Manifest is report.json.
type Manifest struct {
	Fairbench string           `json:"fairbench"`
	Title     string           `json:"title"`
	Inputs    []string         `json:"inputs,omitempty"`
	Runs      []ManifestRun    `json:"runs,omitempty"`
	Figures   []ManifestFigure `json:"figures"`
	Tables    []ManifestTable  `json:"tables"`
	Warnings  []string         `json:"warnings,omitempty"`
}

// ManifestRun is one run of the report.
type ManifestRun struct {
	ID     string `json:"id"`
	Policy string `json:"policy"`
	Seed   int64  `json:"seed"`
	Point  string `json:"point"`
	File   string `json:"file"`
}

// ManifestFigure is one figure and its files (relative to the report).
type ManifestFigure struct {
	Name  string   `json:"name"`
	Title string   `json:"title"`
	Files []string `json:"files"`
	// PNGWidth and PNGHeight are the PNG's size in pixels.
	PNGWidth  int `json:"png_width"`
	PNGHeight int `json:"png_height"`
}

// ManifestTable is one table and its files.
type ManifestTable struct {
	Name  string   `json:"name"`
	Title string   `json:"title"`
	Files []string `json:"files"`
}

// rendered is one figure's files.
type rendered struct {
	svg, pdf, png []byte
}

// Write writes the report to dir: it is built in a temporary folder next
// to dir and renamed into place, so dir holds either the whole report or
// what it held before. An existing dir is replaced only when it is empty
// or a previous report (it holds report.json).
func (r *Report) Write(dir string) error {
	if err := checkTarget(dir); err != nil {
		return err
	}
	tmp, err := atomicfile.TempDir(dir)
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	if err := r.writeInto(tmp); err != nil {
		atomicfile.Discard(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		atomicfile.Discard(tmp)
		return fmt.Errorf("reports: %w", err)
	}
	if err := atomicfile.Replace(tmp, dir); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// checkTarget refuses to replace a folder that is not a report.
func checkTarget(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("reports: %s exists and is not a folder", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	if len(ents) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); err != nil {
		return fmt.Errorf("reports: %s exists and is not a fairbench report (no %s); give another --out or remove it", dir, ManifestName)
	}
	return nil
}

func (r *Report) writeInto(dir string) error {
	for _, sub := range []string{"figures", "tables"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
	}
	out, err := r.render()
	if err != nil {
		return err
	}
	write := func(name string, b []byte) error {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
		return nil
	}
	man := r.manifest()
	for i, f := range r.Figures {
		base := filepath.Join("figures", f.Name)
		for _, w := range []struct {
			ext string
			b   []byte
		}{{".svg", out[i].svg}, {".pdf", out[i].pdf}, {".png", out[i].png}, {".csv", f.Data.CSV()}} {
			if err := write(base+w.ext, w.b); err != nil {
				return err
			}
		}
	}
	for _, t := range r.Tables {
		base := filepath.Join("tables", t.Name)
		if err := write(base+".csv", t.Data.CSV()); err != nil {
			return err
		}
		if err := write(base+".md", []byte("# "+t.Title+"\n\n"+t.Caption+"\n\n"+t.Markdown())); err != nil {
			return err
		}
	}
	html, err := r.html(out)
	if err != nil {
		return err
	}
	if err := write("index.html", html); err != nil {
		return err
	}
	if err := write("report.md", r.markdown()); err != nil {
		return err
	}
	b, err := json.MarshalIndent(man, "", " ")
	if err != nil {
		return fmt.Errorf("reports: manifest: %w", err)
	}
	return write(ManifestName, append(b, '\n'))
}

// render draws every figure in every format, Options.Workers at a time
// (each figure's formats one after another: drawing a plot adjusts its
// axes, so one plot is never drawn by two goroutines).
func (r *Report) render() ([]rendered, error) {
	out := make([]rendered, len(r.Figures))
	errs := make([]error, len(r.Figures))
	workers := max(1, r.Options.Workers)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := r.Figures[i]
				var e1, e2, e3 error
				out[i].svg, e1 = f.SVG()
				out[i].pdf, e2 = f.PDF()
				out[i].png, e3 = f.PNG(r.Options.DPI)
				errs[i] = errors.Join(e1, e2, e3)
				mu.Lock()
				done++
				if r.Options.Progress != nil {
					r.Options.Progress(done, len(r.Figures), f.Name)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range r.Figures {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
}

func (r *Report) manifest() *Manifest {
	m := &Manifest{Fairbench: r.Options.Version, Title: r.Options.Title, Figures: []ManifestFigure{}, Tables: []ManifestTable{}}
	if r.Set != nil {
		m.Inputs = r.Set.Inputs
		m.Warnings = r.Set.Warnings
		for _, run := range r.Set.Runs {
			m.Runs = append(m.Runs, ManifestRun{ID: run.Record.ID, Policy: run.Record.Policy, Seed: run.Record.Seed,
				Point: run.Point.Label, File: run.Path})
		}
	}
	for _, f := range r.Figures {
		w, h := f.PNGSize(r.Options.DPI)
		var files []string
		for _, ext := range []string{".svg", ".pdf", ".png", ".csv"} {
			files = append(files, "figures/"+f.Name+ext)
		}
		m.Figures = append(m.Figures, ManifestFigure{Name: f.Name, Title: f.Title, Files: files, PNGWidth: w, PNGHeight: h})
	}
	for _, t := range r.Tables {
		m.Tables = append(m.Tables, ManifestTable{Name: t.Name, Title: t.Title, Files: []string{"tables/" + t.Name + ".csv", "tables/" + t.Name + ".md"}})
	}
	return m
}
