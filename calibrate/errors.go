package calibrate

import (
	"fmt"
	"strings"
)

// InputError is bad input read from a file — a profile, a calibration
// record or a gpu_types list (What) — naming the file, the line (0 when
// unknown), the field and the reason.
type InputError struct {
	What   string
	File   string
	Line   int
	Field  string
	Reason string
}

func (e *InputError) Error() string {
	where := e.File
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field == "" {
		return fmt.Sprintf("calibrate: %s %s: %s", e.What, where, e.Reason)
	}
	return fmt.Sprintf("calibrate: %s %s: %s: %s", e.What, where, e.Field, e.Reason)
}

// nearestLine is the line of path, or of its nearest ancestor that lines
// knows ("models[1].batch_sizes", then "models[1]", then "models"); 0 when
// none.
func nearestLine(path string, lines func(string) (int, bool)) int {
	for path != "" {
		if l, ok := lines(path); ok {
			return l
		}
		cut := strings.LastIndexAny(path, ".[")
		if cut < 0 {
			break
		}
		path = path[:cut]
	}
	return 0
}
