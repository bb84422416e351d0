package input

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(small, 5); err != nil || string(b) != "12345" {
		t.Errorf("5 bytes at limit 5: %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := ReadFile(small, 4); !errors.As(err, &tl) || tl.Limit != 4 || !strings.Contains(err.Error(), small+": larger than 4 bytes") {
		t.Errorf("5 bytes at limit 4: %v", err)
	}
	// A device is refused at once, whatever the limit.
	for _, dev := range []string{"/dev/zero", "/dev/urandom", "/dev/null"} {
		if _, err := ReadFile(dev, 1<<30); err == nil || !strings.Contains(err.Error(), "is a device, not a file") {
			t.Errorf("%s: %v", dev, err)
		}
	}
	if _, err := ReadFile(dir, 10); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("folder: %v", err)
	}
	// A FIFO nobody writes to reads as empty instead of blocking.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(fifo, 10); err != nil || len(b) != 0 {
		t.Errorf("FIFO without a writer: %q, %v", b, err)
	}
}

func TestLimitAndLines(t *testing.T) {
	t.Parallel()
	// Limit: 10 bytes pass, the 11th fails with the file and the limit.
	b, err := io.ReadAll(Limit(strings.NewReader("0123456789"), "f", 10))
	if err != nil || string(b) != "0123456789" {
		t.Errorf("10 of 10: %q %v", b, err)
	}
	var tl *TooLargeError
	if _, err := io.ReadAll(Limit(strings.NewReader("0123456789A"), "f", 10)); !errors.As(err, &tl) {
		t.Errorf("11 of 10: %v", err)
	}
	// Lines: lines of 3 bytes pass at max 3; the 4-byte third line fails,
	// naming line 3.
	if _, err := io.ReadAll(Lines(strings.NewReader("abc\ndef\n"), 3)); err != nil {
		t.Errorf("3-byte lines at 3: %v", err)
	}
	var long *LineTooLongError
	_, err = io.ReadAll(Lines(strings.NewReader("abc\ndef\nghij\n"), 3))
	if !errors.As(err, &long) || long.Line != 3 {
		t.Errorf("4-byte third line: %v", err)
	}
	// An endless line from an endless reader stops at the limit.
	_, err = io.ReadAll(Lines(endless{}, 1<<10))
	if !errors.As(err, &long) || long.Line != 1 {
		t.Errorf("endless line: %v", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	return len(p), nil
}

func TestSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{16 << 20: "16 MiB", 1 << 30: "1 GiB", 1 << 10: "1 KiB", 1000: "1000 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
