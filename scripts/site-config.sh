# Sourced by scripts/install.sh: the site's settings given at install, as
# C Darshan's configure options compile in its defaults, turned into
# configuration-file lines and written into the installed libdarshan.so
# and libdarshan.a after the marker the runtime carries
# (darshan_log::defaults::INSTALLED_CONFIG_MARKER; core/src/config/
# installed.rs reads them before DARSHAN_CONFIG_PATH's file and the
# environment, which override them).
#
#   --log-path DIR            LOGPATH DIR         (--with-log-path: the dated tree)
#   --log-path-by-env V[,V]   LOGPATH_BYENV V,... (--with-log-path-by-env)
#   --jobid-env VAR           JOBID VAR           (--with-jobid-env)
#   --mod-mem MIB             MODMEM MIB          (--with-mod-mem)
#   --name-mem MIB            NAMEMEM MIB         (--with-name-mem)
#   --log-hints HINTS         LOGHINTS HINTS      (--with-log-hints)
#   --username-env VAR        USERNAME_ENV VAR    (--with-username-env)
#   --group-readable-logs     GROUP_READABLE_LOGS (--enable-group-readable-logs)
#   --config FILE             FILE's lines as they are (any keyword of
#                             docs/runtime.md's configuration file)
#
#   --enable-apmpi-mod        MOD_ENABLE APMPI    (darshan-runtime's and darshan-util's)
#   --enable-apmpi-coll-sync  APMPI_COLL_SYNC     (--enable-apmpi-coll-sync)
#   --enable-apxc-mod         (darshan-util's only: the APXC line below)
#
# --enable-apmpi-mod is darshan-util's option too: the tools and
# libdarshan-util.so read AutoPerf's APMPI records, as a darshan-util built
# with it does; that line goes in util_config, written after the marker
# darshan-util carries (crates/darshan-util/src/installed.rs) in each
# installed file that holds it. The runtime records the APMPI module in
# every MPI job (the site's config file or the environment can switch it
# off: MOD_DISABLE APMPI). --enable-apxc-mod is darshan-util's only here:
# the tools and the library read AutoPerf's APXC records (a Cray XC's
# Aries router counters, which C's runtime reads through PAPI on those
# machines); the runtime has no APXC module, so it writes none.
#
# C's own spellings work too (--with-log-path=DIR, --enable-group-
# readable-logs ...), so that a site's configure line carries over.

site_config_die() {
    echo "install.sh: $*" >&2
    exit 1
}

# A value that is one word of a configuration line.
site_config_word() {
    case $2 in
        "" | *[[:space:]]* | *"#"*) site_config_die "$1 '$2': one word without '#' expected" ;;
    esac
}

# Sets site_config to the lines the options give.
site_config_from_options() {
    site_config=
    util_config=
    local opt val key
    while [ $# -gt 0 ]; do
        opt=$1
        shift
        case $opt in
            --with-*) opt=--${opt#--with-} ;;
            --enable-*) opt=--${opt#--enable-} ;;
        esac
        case $opt in
            --group-readable-logs)
                site_config+="GROUP_READABLE_LOGS"$'\n'
                continue ;;
            --apmpi-mod)
                util_config+="APMPI"$'\n'
                site_config+="MOD_ENABLE APMPI"$'\n'
                echo "install.sh: --enable-apmpi-mod: the runtime records AutoPerf's APMPI module in MPI jobs, and darshan-util's tools and library read it" >&2
                continue ;;
            --apmpi-coll-sync)
                site_config+="APMPI_COLL_SYNC"$'\n'
                continue ;;
            --apxc-mod)
                util_config+="APXC"$'\n'
                echo "install.sh: --enable-apxc-mod: darshan-util's tools and library read AutoPerf's APXC records (Cray XC routers); the runtime records none (it reads no Aries router counters)" >&2
                continue ;;
            --*=*) val=${opt#*=} opt=${opt%%=*} ;;
            --*) [ $# -gt 0 ] || site_config_die "$opt: a value expected"; val=$1; shift ;;
            *) site_config_die "unknown argument '$opt' ($usage)" ;;
        esac
        case $opt in
            --config)
                [ -f "$val" ] || site_config_die "--config $val: not a regular file"
                site_config+="$(cat -- "$val")"$'\n'
                continue ;;
            --log-path) key=LOGPATH; [ "${val#/}" != "$val" ] || site_config_die "--log-path $val: an absolute path expected" ;;
            --log-path-by-env) key=LOGPATH_BYENV
                [[ $val =~ ^[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*$ ]] || site_config_die "--log-path-by-env $val: variable names, comma-separated, expected" ;;
            --jobid-env) key=JOBID
                [[ $val =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || site_config_die "--jobid-env $val: a variable name expected" ;;
            --mod-mem) key=MODMEM; [[ $val =~ ^[0-9]+$ ]] || site_config_die "--mod-mem $val: MiB expected" ;;
            --name-mem) key=NAMEMEM; [[ $val =~ ^[0-9]+$ ]] || site_config_die "--name-mem $val: MiB expected" ;;
            --log-hints) key=LOGHINTS ;;
            --username-env) key=USERNAME_ENV
                [[ $val =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || site_config_die "--username-env $val: a variable name expected" ;;
            *) site_config_die "unknown option '$opt' ($usage)" ;;
        esac
        site_config_word "$opt" "$val"
        site_config+="$key $val"$'\n'
    done
    # The field holds 4096 bytes with the terminating NUL
    # (darshan_log::defaults::INSTALLED_CONFIG_CAPACITY).
    [ "$(printf '%s' "$site_config" | wc -c)" -lt 4096 ] || site_config_die "the settings take more than 4095 bytes"
}

# The offset of the field after the marker in FILE, which must hold it
# once.
site_config_field() {
    local at
    at=$(grep -obUaF 'darshan-rs:installed-config---->' "$1" | cut -d: -f1)
    [ "$(printf '%s' "$at" | grep -c .)" = 1 ] || site_config_die "$1: the installed configuration's field is not there once"
    echo $((at + 32))
}

# Writes the lines into FILE's field.
site_config_write() {
    local at
    at=$(site_config_field "$1") || exit 1
    printf '%s\0' "$site_config" | dd of="$1" bs=1 seek="$at" conv=notrunc status=none
}

# A copy of the library LIB, with the lines written in, reads them as
# every process will: what it says of them (a keyword it does not know, a
# bad value) stops the install before anything is installed, which would
# otherwise have every process of the site say it.
site_config_check() {
    local copy said
    site_config_field "$1" > /dev/null || exit 1
    copy=$(mktemp)
    cp "$1" "$copy"
    site_config_write "$copy"
    said=$(env -i PATH=/usr/bin:/bin LD_PRELOAD="$copy" /bin/true 2>&1 | grep '^darshan: installed config' || true)
    rm -f "$copy"
    [ -z "$said" ] || site_config_die "the settings given are not right:"$'\n'"$said"
}

# Writes util_config into every file under the directories given that
# holds darshan-util's marker (once; twice is refused).
util_config_write() {
    local f at
    for f in "$@"; do
        [ -f "$f" ] && [ ! -L "$f" ] || continue
        at=$(grep -obUaF 'darshan-rs:installed-util------>' "$f" | cut -d: -f1 || true)
        [ -n "$at" ] || continue
        [ "$(printf '%s' "$at" | grep -c .)" = 1 ] || site_config_die "$f: darshan-util's installed field is there more than once"
        printf '%s\0' "$util_config" | dd of="$f" bs=1 seek=$((at + 32)) conv=notrunc status=none
    done
}
