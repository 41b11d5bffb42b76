package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// agentIndexDir holds the index from a coding agent's session ids to ours: one small file per
// agent session, <dir>/.agents/<agent>/<agent session id>, holding our id. The dot keeps it out of
// `session list`, like the lock and temporary files.
const agentIndexDir = ".agents"

// OpenAgent returns the session that session agentID of agent (Claude Code's session_id, Codex's
// thread id) maps to. On first sight it creates one from params(), recording agent and agentID
// in it, makes it current and indexes it; after that every hook of the agent's session finds the
// same one. A session that ended (the agent's SessionEnd) is made active and current again when
// the agent resumes it. Agent processes starting together agree on one session: the lookup is
// repeated under the folder's lock before a session is created. created reports a new session.
func (s *Store) OpenAgent(agent, agentID string, params func() Params) (sess *Session, created bool, err error) {
	index, err := s.agentIndexPath(agent, agentID)
	if err != nil {
		return nil, false, err
	}
	if found := s.indexed(index); found != nil && found.Active() {
		return found, false, nil // the usual case: no lock taken
	}
	err = s.locked(func() error {
		if found := s.indexed(index); found != nil {
			sess = found
			if found.Active() {
				return nil
			}
			found.Status, found.EndTime, found.Metadata.TotalDuration, found.EndReason = StatusActive, time.Time{}, 0, ""
			if err := s.write(found); err != nil {
				return err
			}
			return s.setCurrent(found.ID)
		}
		p := params()
		p.ID, p.Agent, p.AgentSessionID = "", agent, agentID
		var err error
		if sess, err = s.create(p); err != nil {
			return err
		}
		created = true
		if err := os.MkdirAll(filepath.Dir(index), 0o700); err != nil {
			return fmt.Errorf("index agent session: %w", err)
		}
		if err := atomicfile.WriteFile(index, []byte(sess.ID+"\n"), 0o600); err != nil {
			return fmt.Errorf("index agent session: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("open %s session %s: %w", agent, agentID, err)
	}
	return sess, created, nil
}

// indexed reads the session an index file names; nil when there is none. A record that is gone
// or unreadable is reported (a new session takes its place) rather than failing every hook of the
// agent's session.
func (s *Store) indexed(index string) *Session {
	b, err := atomicfile.ReadFile(index)
	if err != nil {
		return nil
	}
	id := strings.TrimSpace(string(b))
	if !ValidID(id) {
		s.warn(fmt.Errorf("%s: %q is not a session id; starting a new session", index, id))
		return nil
	}
	sess, err := s.read(id)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			s.warn(fmt.Errorf("%w; starting a new session", err))
		}
		return nil
	}
	return sess
}

// agentIndexPath is the index file of an agent's session id. An id that is not a plain name
// (the hosts use UUIDs) is hashed, so that no id can name a path outside the index.
func (s *Store) agentIndexPath(agent, agentID string) (string, error) {
	if !plainName(agent) {
		return "", fmt.Errorf("open agent session: invalid agent name %q", agent)
	}
	if agentID == "" {
		return "", fmt.Errorf("open %s session: no session id", agent)
	}
	key := agentID
	if !plainName(agentID) {
		sum := sha256.Sum256([]byte(agentID))
		key = "sha256-" + hex.EncodeToString(sum[:])
	}
	return filepath.Join(s.dir, agentIndexDir, agent, key), nil
}

// plainName reports whether s is a safe file name: letters, digits, _ and -, not starting with -,
// at most 128 bytes.
func plainName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
