#!/bin/sh
[ -n "$1" ] && [ -f "$1" ] && cp "$1" "$1.bak" && echo "backed up $1"
exit 0
