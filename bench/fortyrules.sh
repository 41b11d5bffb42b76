#!/usr/bin/env bash
# Prints the configuration of 40 rules that bench/rules.sh and bench/biginput.sh time, none of
# which decides their calls (so every rule is evaluated): 20 command patterns, 10 globs over the
# files a call writes, 10 expressions over Bash calls.
set -euo pipefail
echo '{"rules": ['
for i in $(seq 0 19); do echo "{\"name\": \"cmd$i\", \"command\": \"prog$i -rf --force\", \"decision\": \"deny\"},"; done
for i in $(seq 0 9); do echo "{\"name\": \"w$i\", \"writes\": [\"dir$i/**\", \"*.secret$i\"], \"decision\": \"deny\"},"; done
for i in $(seq 0 8); do echo "{\"name\": \"when$i\", \"tools\": \"Bash\", \"when\": \"toolInput.command contains 'never$i'\", \"decision\": \"ask\"},"; done
echo '{"name": "when9", "tools": "Bash", "when": "toolInput.command contains '"'never9'"'", "decision": "ask"}'
echo ']}'
