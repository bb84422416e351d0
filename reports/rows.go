package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fairbench/internal/input"
)

// Limits on the tables a report reads: each calibration job type (and
// gang) widens the calibration figures, so their number is bounded as
// well as the rows.
const (
	MaxTableRows       = 1000
	MaxCalibrationJobs = 100
)

// readRows reads a small table from a CSV file (a header row, '#' comment
// lines) or a JSON file (an array of objects, or an object whose key
// `rows` or `measurements` holds one), as maps of lower-case column name
// to text. Numbers and booleans in JSON become their text.
func readRows(path string) ([]map[string]string, []string, error) {
	b, err := input.ReadFile(path, input.MaxTableBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("reports: %w", err)
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return jsonRows(path, b)
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, nil, fmt.Errorf("reports: %s: no rows (want a header row and at least one data row)", path)
	}
	if len(recs)-1 > MaxTableRows {
		return nil, nil, fmt.Errorf("reports: %s: %d rows, more than the limit of %d (docs/limits.md)", path, len(recs)-1, MaxTableRows)
	}
	header := make([]string, len(recs[0]))
	for i, h := range recs[0] {
		header[i] = strings.ToLower(strings.TrimSpace(h))
	}
	var rows []map[string]string
	for i, rec := range recs[1:] {
		if len(rec) != len(header) {
			return nil, nil, fmt.Errorf("reports: %s: row %d has %d fields, the header %d", path, i+2, len(rec), len(header))
		}
		m := map[string]string{"_line": strconv.Itoa(i + 2)}
		for j, v := range rec {
			m[header[j]] = strings.TrimSpace(v)
		}
		rows = append(rows, m)
	}
	return rows, header, nil
}

func jsonRows(path string, b []byte) ([]map[string]string, []string, error) {
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	if m, ok := raw.(map[string]any); ok {
		switch {
		case m["rows"] != nil:
			raw = m["rows"]
		case m["measurements"] != nil:
			raw = m["measurements"]
		}
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, nil, fmt.Errorf("reports: %s: want a non-empty array of objects (or {\"rows\": [...]})", path)
	}
	if len(list) > MaxTableRows {
		return nil, nil, fmt.Errorf("reports: %s: %d rows, more than the limit of %d (docs/limits.md)", path, len(list), MaxTableRows)
	}
	var rows []map[string]string
	var header []string
	for i, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("reports: %s: element %d is not an object", path, i)
		}
		m := map[string]string{"_line": fmt.Sprintf("element %d", i)}
		for k, v := range obj {
			k = strings.ToLower(k)
			if !slices.Contains(header, k) {
				header = append(header, k)
			}
			switch x := v.(type) {
			case string:
				m[k] = x
			case float64:
				m[k] = strconv.FormatFloat(x, 'g', -1, 64)
			case bool:
				m[k] = strconv.FormatBool(x)
			case nil:
				m[k] = ""
			default:
				j, _ := json.Marshal(x)
				m[k] = string(j)
			}
		}
		rows = append(rows, m)
	}
	slices.Sort(header)
	return rows, header, nil
}

func where(path string, row map[string]string) string {
	if strings.HasPrefix(row["_line"], "element") {
		return path + ": " + row["_line"]
	}
	return path + ":" + row["_line"]
}
