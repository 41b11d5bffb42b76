package telemetry

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/internal/sibling"
)

// The spool: <AUTOAGENT_HOME>/telemetry/spool/<destination key>/ holds
//
//	destination.json     where its batches go (URLs and headers; the folder is private, 0700)
//	<unixnano>-<pid>-<random>.otlp.jsonl
//	                     one batch per fired event: an OTLP/JSON ExportTraceServiceRequest line
//	                     and an ExportLogsServiceRequest line, as a collector takes them
//	state.json           the shipper's: when it last started, failures in a row, when to retry
//
// A batch is written under a temporary name and renamed, so the shipper never reads half of one,
// and removed only once the collector took it.

const (
	batchSuffix = ".otlp.jsonl"
	// ShipInterval is how often, at most, an event starts the shipper.
	ShipInterval = 5 * time.Second
	// maxBackoff bounds the wait before the shipper tries a collector that failed again.
	maxBackoff = 5 * time.Minute
	// ShipperName is the shipper's executable.
	ShipperName = "agent-hooks-otel"
)

// SpoolDir is the spool of an AUTOAGENT_HOME.
func SpoolDir(home string) string { return filepath.Join(home, "telemetry", "spool") }

// Flush writes what was recorded to the spool as one batch (nothing when nothing was). It never
// touches the network.
func (r *Recorder) Flush() error {
	if r.Empty() || r.dest == nil {
		return nil
	}
	dir := filepath.Join(r.spool, r.dest.Key())
	if err := ensureDestination(dir, r.dest); err != nil {
		return err
	}
	traces, logs := r.batch()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(traces); err != nil {
		return err
	}
	if err := enc.Encode(logs); err != nil {
		return err
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := fmt.Sprintf("%019d-%d-%s%s", r.now().UnixNano(), os.Getpid(), hex.EncodeToString(rnd[:]), batchSuffix)
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("telemetry spool: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("telemetry spool: %w", err)
	}
	return nil
}

// ensureDestination makes the destination's folder and its destination.json (rewritten when the
// headers changed).
func ensureDestination(dir string, d *Destination) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "destination.json")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("telemetry spool: %w", err)
	}
	tmp := path + "." + strconv.Itoa(os.Getpid()) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("telemetry spool: %w", err)
	}
	return os.Rename(tmp, path)
}

// Partition is one destination's folder of the spool.
type Partition struct {
	Dir         string
	Destination Destination
}

// Partitions lists the spool's destinations.
func Partitions(home string) ([]Partition, error) {
	root := SpoolDir(home)
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the telemetry spool: %w", err)
	}
	var out []Partition
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "destination.json"))
		if err != nil {
			continue // being made
		}
		var d Destination
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "destination.json"), err)
		}
		out = append(out, Partition{Dir: dir, Destination: d})
	}
	return out, nil
}

// Batches lists a partition's batches, oldest first.
func (p Partition) Batches() ([]string, error) {
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return nil, fmt.Errorf("read the telemetry spool: %w", err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), batchSuffix) && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(p.Dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out, nil
}

// ReadBatch reads a spool file.
func ReadBatch(path string) (TracesData, LogsData, error) {
	var t TracesData
	var l LogsData
	f, err := os.Open(path)
	if err != nil {
		return t, l, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte(`{"resourceSpans"`)):
			err = json.Unmarshal(line, &t)
		case bytes.HasPrefix(line, []byte(`{"resourceLogs"`)):
			err = json.Unmarshal(line, &l)
		}
		if err != nil {
			return t, l, fmt.Errorf("%s: %w", path, err)
		}
	}
	return t, l, sc.Err()
}

// State is a partition's shipping state.
type State struct {
	Started  time.Time `json:"started"`  // when a shipper last started on it
	Failures int       `json:"failures"` // exports that failed in a row
	Retry    time.Time `json:"retry"`    // no shipper before then (backoff after failures)
	Error    string    `json:"error,omitempty"`
}

func statePath(dir string) string { return filepath.Join(dir, "state.json") }

// ReadState reads a partition's state (zero when it has none).
func ReadState(dir string) State {
	var s State
	if b, err := os.ReadFile(statePath(dir)); err == nil {
		_ = json.Unmarshal(b, &s)
	}
	return s
}

// WriteState replaces a partition's state.
func WriteState(dir string, s State) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp := statePath(dir) + "." + strconv.Itoa(os.Getpid()) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(dir))
}

// Backoff is the wait after failures in a row: 5 s doubling, at most maxBackoff.
func Backoff(failures int) time.Duration {
	d := ShipInterval
	for i := 1; i < failures && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// ShouldShip reports whether an event should start the shipper for the recorder's destination
// now: none started in the last ShipInterval and no backoff is running. With force (session end)
// only a running backoff holds it back. It reads one small file.
func (r *Recorder) ShouldShip(force bool) bool {
	if r.dest == nil {
		return false
	}
	s := ReadState(filepath.Join(r.spool, r.dest.Key()))
	now := r.now()
	if now.Before(s.Retry) {
		return false
	}
	return force || now.Sub(s.Started) >= ShipInterval
}

// FindShipper is the agent-hooks-otel next to the agent-hooks executable, else on PATH ("" when
// there is none).
func FindShipper(executable string) string { return sibling.Find(executable, ShipperName) }

// StartShipper starts the shipper on the spool of home, detached (its own session, no stdio):
// the event does not wait for it, and it outlives the agent-hooks that started it. It marks the
// destination's state as started first, so that the events right after do not start another.
func (r *Recorder) StartShipper(shipper, home string, environ []string) error {
	dir := filepath.Join(r.spool, r.dest.Key())
	s := ReadState(dir)
	s.Started = r.now()
	if err := WriteState(dir, s); err != nil {
		return err
	}
	cmd := exec.Command(shipper, "ship", "--home", home)
	cmd.Env = environ
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", shipper, err)
	}
	return cmd.Process.Release()
}
