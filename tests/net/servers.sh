#!/bin/sh
# tests/net/servers.sh: start/stop private nginx instances for the network
# tests (see README.md beside this file).
#   servers.sh start    ROOTDIR STATEDIR                  -> STATEDIR/env
#   servers.sh start-hf ROOTDIR STATEDIR [--cdn-url URL]  -> STATEDIR/env
#   servers.sh start-ollama ROOTDIR STATEDIR [--cdn-url URL]  -> STATEDIR/env
#   servers.sh stop     STATEDIR
exec "${PYTHON:-/usr/bin/python3}" "$(dirname "$0")/servers.py" "$@"
