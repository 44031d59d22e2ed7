# Sourced by the load scripts: wrk from Debian's packages when it is missing.
ensure_wrk() {
    if ! command -v wrk >/dev/null 2>&1; then
        apt-get update -qq && apt-get install -y -qq wrk >/dev/null
    fi
}
