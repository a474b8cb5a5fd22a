#!/usr/bin/env bash
# scripts/install.sh BUILD_DIR PREFIX: install the runtime and the tools
# from a cargo release build directory (target/release) into PREFIX.
#   PREFIX/bin    darshan-parser, -dxt-parser, -convert, -merge, -analyzer, -run,
#                 darshan-summary, -ingest, -study, darshan-config, darshan-top, darshan-stream, darshan-mk-log-dirs, darshan-mmap-epilog, darshan-job-epilog,
#                 darshan-cc (and -cxx, -mpicc, -mpicxx, -mpifort, -fc)
#   PREFIX/lib    libdarshan.so (.so.0, .so.0.0.0: C Darshan's names),
#                 libdarshan.a, pkgconfig/darshan-runtime.pc,
#                 libdarshan-util.so (.so.0, .so.0.0.0: darshan-util's C API
#                 for reading logs, which PyDarshan built against
#                 darshan-util loads), libdarshan-util.a (the same for
#                 static links), pkgconfig/darshan-util.pc
#   PREFIX/include darshan-logutils.h and the headers it includes (C
#                 programs compiled against darshan-util)
#   PREFIX/libexec darshan-config's engine (bin/darshan-config is a shell script)
#   PREFIX/share  ld-opts/darshan-ld-opts (--wrap for static linking),
#                 ld-opts/darshan-hdf5-ld-opts (and for HDF5 programs),
#                 ld-opts/darshan-pnetcdf-ld-opts (and for PnetCDF ones),
#                 mpi-profile/darshan-{cc,cxx,f}{,-static}.conf (MPICH's -profile=),
#                 modulefiles/darshan (environment-modules and Lmod), and
#                 at C Darshan's Cray paths craype-{1,2}.x/modulefiles/darshan/VERSION
# Nothing installed names the build tree: darshan-config, the compiler
# wrappers and the pkg-config file find PREFIX from where they are, so the
# tree can be copied or moved as a whole.
#
# Site settings after PREFIX (scripts/site-config.sh), as C Darshan's
# configure options: --log-path DIR (the dated log tree, --with-log-path),
# --log-path-by-env VARS, --jobid-env VAR, --mod-mem MIB, --name-mem MIB,
# --log-hints HINTS, --username-env VAR, --group-readable-logs (logs 0440),
# --config FILE; --enable-apmpi-mod (the runtime records AutoPerf's APMPI
# module, and the tools and library read it), --enable-apmpi-coll-sync and
# --enable-apxc-mod (the tools and library read AutoPerf's APXC records);
# C's spellings (--with-log-path=DIR, --enable-group-
# readable-logs) too. They are written into the installed
# libdarshan.so and libdarshan.a, so that every process, a statically
# linked one too, has them with nothing in its environment; a config file
# (DARSHAN_CONFIG_PATH) and the environment override them.
# darshan-config prints them (--log-path, --jobid-env, ...), and
# darshan-mk-log-dirs and darshan-mmap-epilog take the log tree when not
# told.
set -euo pipefail
usage="usage: install.sh BUILD_DIR PREFIX [--log-path DIR] [--log-path-by-env VARS] [--jobid-env VAR] [--mod-mem MIB] [--name-mem MIB] [--log-hints HINTS] [--username-env VAR] [--group-readable-logs] [--config FILE] [--enable-apmpi-mod] [--enable-apmpi-coll-sync] [--enable-apxc-mod]"
build=${1:?$usage}
prefix=${2:?$usage}
shift 2
. "$(dirname "$0")/site-config.sh"
site_config_from_options "$@"
src=$(cd "$(dirname "$0")/.." && pwd)
tools=(darshan-parser darshan-dxt-parser darshan-convert darshan-diff darshan-merge darshan-analyzer darshan-run darshan-summary darshan-ingest darshan-study darshan-config darshan-top darshan-stream darshan-replay)
for f in libdarshan.so libdarshan.a libdarshan_logutils.so "${tools[@]}"; do
    [ -f "$build/$f" ] || { echo "install.sh: $build/$f missing (cargo build --release)" >&2; exit 1; }
done
[ -z "$site_config" ] || site_config_check "$build/libdarshan.so"
mkdir -p "$prefix/bin" "$prefix/lib/pkgconfig"
for f in "${tools[@]}"; do
    [ "$f" = darshan-config ] && continue
    install -m 0755 "$build/$f" "$prefix/bin/$f"
done
# darshan-config is a POSIX shell script, as C Darshan's is: scripts run
# it as `sh darshan-config ...` (Darshan's own tst_runs.sh does, under
# set -e). Its answers come from the compiled engine in libexec/, which
# finds the tree from where it is (libexec/../lib), so the tree can move.
mkdir -p "$prefix/libexec"
install -m 0755 "$build/darshan-config" "$prefix/libexec/darshan-config"
cat > "$prefix/bin/darshan-config" <<'SCRIPT'
#!/bin/sh
# darshan-config: how this Darshan (darshan-rs) install was built and where
# it is; `darshan-config --help` lists the options. A shell script, as C
# Darshan's is, so that `sh darshan-config ...` works; the answers come
# from the engine beside this tree's lib/.
self=$0
case $self in
    */*) ;;
    *) self=$(command -v -- "$self" 2>/dev/null) || self=./darshan-config ;;
esac
# Through a symbolic link (bin/ linked into /usr/local/bin), to the tree.
real=$(readlink -f -- "$self" 2>/dev/null) && self=$real
exec "${self%/*}/../libexec/darshan-config" "$@"
SCRIPT
chmod 0755 "$prefix/bin/darshan-config"
install -m 0755 "$src/scripts/darshan-mk-log-dirs" "$src/scripts/darshan-mmap-epilog" "$src/scripts/darshan-job-epilog" "$prefix/bin/"
# Under C Darshan's names too, for the site scripts and epilog settings
# that call them: bin/darshan-mk-log-dirs.pl (a Perl script, so that
# `perl darshan-mk-log-dirs.pl` works as well) and
# share/darshan-mmap-epilog.sh. Without arguments they take the tree
# given with --log-path, as C's take the configured one.
cat > "$prefix/bin/darshan-mk-log-dirs.pl" <<'PERL'
#!/usr/bin/perl -w
# darshan-mk-log-dirs.pl: C Darshan's name for darshan-mk-log-dirs (beside
# this file), which makes the YYYY/M/D directories of the log tree given
# at install (darshan-config --log-path) for this year and the next.
use strict;
use File::Basename;
use Cwd qw(abs_path);
my $tool = dirname(abs_path($0)) . "/darshan-mk-log-dirs";
exec($tool, @ARGV) or die("darshan-mk-log-dirs.pl: cannot run $tool: $!\n");
PERL
mkdir -p "$prefix/share"
cat > "$prefix/share/darshan-mmap-epilog.sh" <<'SH'
#!/bin/bash
# darshan-mmap-epilog.sh: C Darshan's name for bin/darshan-mmap-epilog of
# this tree, which merges the crash-safe files a job ($SLURM_JOB_ID) left
# on this node into logs in the tree given at install (darshan-config
# --log-path) and removes them.
here=$(dirname "$(readlink -f "$0")")
exec "$here/../bin/darshan-mmap-epilog" "$@"
SH
chmod 0755 "$prefix/bin/darshan-mk-log-dirs.pl" "$prefix/share/darshan-mmap-epilog.sh"
# C Darshan's PDF summary and its per-file loop, by their names and
# options: the PDF is darshan-summary's report (--pdf).
install -m 0755 "$src/scripts/darshan-job-summary.pl" "$src/scripts/darshan-summary-per-file.sh" "$prefix/bin/"
# And C's picture of a DXT trace (matplotlib; darshan-dxt-parser's output
# or a log).
install -m 0755 "$src/scripts/dxt_analyzer.py" "$prefix/bin/"
install -m 0755 "$src/scripts/compiler-wrapper" "$prefix/bin/darshan-cc"
for w in darshan-cxx darshan-mpicc darshan-mpicxx darshan-mpifort darshan-fc; do
    ln -sf darshan-cc "$prefix/bin/$w"
done
# Under C Darshan's (libtool's) names: the file, its soname, the link
# name. Programs linked with C Darshan's tree record libdarshan.so.0 and
# find this library in its place; those linked with this tree record the
# same name (ffi/build.rs).
install -m 0755 "$build/libdarshan.so" "$prefix/lib/libdarshan.so.0.0.0"
[ -z "$site_config" ] || site_config_write "$prefix/lib/libdarshan.so.0.0.0"
ln -sf libdarshan.so.0.0.0 "$prefix/lib/libdarshan.so.0"
ln -sf libdarshan.so.0 "$prefix/lib/libdarshan.so"
# darshan-util's library under darshan-util's names (libtool's: the file,
# its soname, the link name), so that PyDarshan finds it next to the
# darshan-parser on the PATH or by the library path.
install -m 0755 "$build/libdarshan_logutils.so" "$prefix/lib/libdarshan-util.so.0.0.0"
ln -sf libdarshan-util.so.0.0.0 "$prefix/lib/libdarshan-util.so.0"
ln -sf libdarshan-util.so.0 "$prefix/lib/libdarshan-util.so"
# And its archive, as libtool installs beside it, for programs linked
# statically (`cc -static ... $(pkg-config --static --libs darshan-util)`).
install -m 0644 "$build/libdarshan_logutils.a" "$prefix/lib/libdarshan-util.a"
# Its C headers (darshan-logutils.h and those it includes), written from
# the format crate, for C programs compiled against darshan-util.
"$build/darshan-util-headers" "$prefix/include"
mkdir -p "$prefix/share/mpi-profile" "$prefix/share/modulefiles"
install -m 0644 "$src"/scripts/share/mpi-profile/*.conf "$prefix/share/mpi-profile/"
install -m 0644 "$src/scripts/share/modulefiles/darshan" "$prefix/share/modulefiles/darshan"
# The static library for link-time instrumentation (`--wrap`): every
# function libdarshan.so interposes (its exports but the darshan_ names,
# so the two lists cannot drift) is renamed X -> __wrap_X, and a table of
# the linker's __real_X (the real X under --wrap) is added for the
# wrappers to call. share/ld-opts/
# darshan-ld-opts holds --wrap=X for each and pulls the table in.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nm -D --defined-only "$build/libdarshan.so" | awk '$2 == "T" || $2 == "W" {print $3}' \
    | grep -v -e '^darshan_' -e '^_init$' -e '^_fini$' | sort -u > "$work/wrapped"
awk '{print $1, "__wrap_" $1}' "$work/wrapped" > "$work/renames"
libc_so=$(${CC:-cc} -print-file-name=libc.so.6)
[ -f "$libc_so" ] || libc_so=/lib/x86_64-linux-gnu/libc.so.6
nm -D --defined-only "$libc_so" | awk '{sub(/@.*/, "", $3); print $3}' | sort -u > "$work/libc"
{
    echo '/* Generated by scripts/install.sh from libdarshan.so'"'"'s exports. */'
    echo 'struct darshan_static_real { const char *name; void *addr; };'
    # Strong for what this libc defines, so that a fully static link
    # (-static) pulls the real function out of libc.a; weak for the rest
    # (MPI, HDF5, functions of newer glibc), null when absent.
    # MPI functions are not in the table: the wrappers find them in the
    # shared libmpi with dlsym(RTLD_NEXT) (a fully static MPI is not
    # supported), because the executable defines them itself, below.
    # HDF5 functions are not in it either: their own table (below) is
    # linked in only with the HDF5 options. Nor PnetCDF's, likewise.
    grep -v -e '^MPI_' -e '^PMPI_' -e '^H5' -e '^ncmpi_' "$work/wrapped" > "$work/tabled"
    awk 'NR == FNR {libc[$1] = 1; next}
         {print "extern char __real_" $1 "[]" (($1 in libc) ? "" : " __attribute__((weak))") ";"}' \
        "$work/libc" "$work/tabled"
    echo 'const struct darshan_static_real darshan_static_reals[] = {'
    awk '{print "    {\"" $1 "\", __real_" $1 "},"}' "$work/tabled"
    echo '    {0, 0}'
    echo '};'
    # Each MPI_X and PMPI_X, defined (weak) in the executable as a jump to
    # its wrapper. The linker exports a definition that a shared library
    # of the link refers to, so the Fortran bindings in libmpi_mpifh.so /
    # libmpifort.so, which call PMPI_X inside the shared MPI where --wrap
    # cannot reach, call the wrapper as they do under LD_PRELOAD.
    echo '__asm__(".text\n"'
    grep -e '^MPI_' -e '^PMPI_' "$work/wrapped" \
        | awk '{print "    \".weak " $1 "\\n.type " $1 ", @function\\n" $1 ": jmp __wrap_" $1 "\\n\""}'
    echo ');'
} > "$work/static_reals.c"
${CC:-cc} -c -O2 -fPIC -o "$work/darshan_static_reals.o" "$work/static_reals.c"
# The static HDF5 table: every HDF5 function the HDF5 wrappers call (the
# list in ffi/src/hdf5_lib.rs, so the two cannot drift), the real one
# (__real_X, which is X under --wrap=X) for a wrapped X. Pulled out of the
# archive only by share/ld-opts/darshan-hdf5-ld-opts, for a program linked
# with HDF5: its strong references then pull the functions out of
# libhdf5.a (under --wrap the program's own references name __wrap_X, and
# nothing else would), and would fail every link without HDF5. Weak are
# the functions not in every HDF5 1.10 build, which sit in the library
# objects the strong ones pull (H5D.o, H5Dio.o, H5O.o, H5Sselect.o,
# H5Shyper.o: the three selection functions of 1.10.7; the MPI-IO
# driver's in a parallel build's H5FDmpio.o, pulled by the program's
# H5Pset_fapl_mpio): a program that calls one gets it.
# Not the 1.6 API's H5Gunlink/H5Gmove/H5Gmove2: under --wrap nothing would
# pull their object (H5Gdeprec.o) out of libhdf5.a, and a program calling
# one would get our wrapper without the real function. Left to HDF5, as
# the runtime expects of a linked-in HDF5 (hdf5_layout.rs keeps no
# layout for one).
grep '^H5' "$work/wrapped" | grep -v -x -e H5Gunlink -e H5Gmove -e H5Gmove2 > "$work/h5wrapped"
sed -n 's/^    \(H5[A-Za-z0-9_]*\): fn(.*/\1/p' "$src/ffi/src/hdf5_lib.rs" | sort -u > "$work/h5called"
if ! cmp -s "$work/h5wrapped" <(comm -12 "$work/h5wrapped" "$work/h5called"); then
    echo "install.sh: a wrapped HDF5 function is missing from ffi/src/hdf5_lib.rs's list" >&2
    exit 1
fi
h5weak=" H5Oopen_by_token H5Dread_multi H5Dwrite_multi H5Dread_chunk H5Dread_chunk1 H5Dread_chunk2 H5Dwrite_chunk H5Dget_chunk_storage_size H5Pget_fapl_mpio H5Pget_dxpl_mpio H5Sselect_copy H5Smodify_select H5Sselect_adjust H5Gunlink H5Gmove H5Gmove2 "
: > "$work/h5decls"
: > "$work/h5entries"
while read -r f; do
    sym=$f
    grep -qx "$f" "$work/h5wrapped" && sym=__real_$f
    case "$h5weak" in *" $f "*) weak=' __attribute__((weak))' ;; *) weak= ;; esac
    echo "extern char $sym[]$weak;" >> "$work/h5decls"
    echo "    {\"$f\", $sym}," >> "$work/h5entries"
done < "$work/h5called"
{
    echo '/* Generated by scripts/install.sh from ffi/src/hdf5_lib.rs. */'
    echo 'struct darshan_static_real { const char *name; void *addr; };'
    cat "$work/h5decls"
    echo 'const struct darshan_static_real darshan_static_hdf5[] = {'
    cat "$work/h5entries"
    echo '    {0, 0}'
    echo '};'
} > "$work/static_hdf5.c"
${CC:-cc} -c -O2 -fPIC -o "$work/darshan_static_hdf5.o" "$work/static_hdf5.c"
# The static PnetCDF table, likewise: the real function of every wrapped
# ncmpi_X (__real_X), and the inquiry functions the wrappers call (the
# list in ffi/src/pnetcdf_lib.rs), all strong, pulled out of the archive
# only by share/ld-opts/darshan-pnetcdf-ld-opts.
grep '^ncmpi_' "$work/wrapped" > "$work/ncwrapped"
sed -n 's/^    \(ncmpi_[A-Za-z0-9_]*\): fn(.*/\1/p' "$src/ffi/src/pnetcdf_lib.rs" | sort -u > "$work/nccalled"
{
    echo '/* Generated by scripts/install.sh from libdarshan.so and ffi/src/pnetcdf_lib.rs. */'
    echo 'struct darshan_static_real { const char *name; void *addr; };'
    awk '{print "extern char __real_" $1 "[];"}' "$work/ncwrapped"
    comm -23 "$work/nccalled" "$work/ncwrapped" | awk '{print "extern char " $1 "[];"}'
    echo 'const struct darshan_static_real darshan_static_pnetcdf[] = {'
    awk '{print "    {\"" $1 "\", __real_" $1 "},"}' "$work/ncwrapped"
    comm -23 "$work/nccalled" "$work/ncwrapped" | awk '{print "    {\"" $1 "\", " $1 "},"}'
    echo '    {0, 0}'
    echo '};'
} > "$work/static_pnetcdf.c"
${CC:-cc} -c -O2 -fPIC -o "$work/darshan_static_pnetcdf.o" "$work/static_pnetcdf.c"
cp "$build/libdarshan.a" "$work/libdarshan.a"
# (Rust objects carry LLVM bitcode too, which binutils cannot read and
# the link does not need.)
objcopy --remove-section=.llvmbc --remove-section=.llvmcmd --redefine-syms="$work/renames" "$work/libdarshan.a"
ar rcs "$work/libdarshan.a" "$work/darshan_static_reals.o" "$work/darshan_static_hdf5.o" \
    "$work/darshan_static_pnetcdf.o"
[ -z "$site_config" ] || site_config_write "$work/libdarshan.a"
install -m 0644 "$work/libdarshan.a" "$prefix/lib/libdarshan.a"
mkdir -p "$prefix/share/ld-opts"
# --undefined for every wrapper too: the wrappers are pulled in where the
# ld-opts file is (--pre-ld-flags), so that libraries the compiler driver
# adds after every argument (gfortran's -lgfortran, linked statically)
# still find them.
# And the threads functions gcc's runtime libraries (libgfortran,
# libstdc++, libgcc_eh) call through weak references once they see
# pthread_key_create linked in, as it is with this runtime: in a fully
# static program nothing else would pull them out of libc.a, and
# libgfortran's first CLOSE called address 0.
{
    echo '--undefined=darshan_static_reals'
    # Not PnetCDF's: with libpnetcdf.a nothing would pull the real
    # functions out of the archive once the program's references name
    # __wrap_X, and its every call would fail; they have their own file
    # (below), which pulls them in.
    grep -v -e '^H5' -e '^ncmpi_' "$work/wrapped" | awk '{print "--wrap=" $1; print "--undefined=__wrap_" $1}'
    for f in pthread_cond_broadcast pthread_cond_destroy pthread_cond_init pthread_cond_signal \
        pthread_cond_timedwait pthread_cond_wait pthread_create pthread_detach pthread_equal \
        pthread_getspecific pthread_join pthread_key_create pthread_key_delete pthread_mutex_destroy \
        pthread_mutex_init pthread_mutex_lock pthread_mutex_timedlock pthread_mutex_trylock \
        pthread_mutex_unlock pthread_mutexattr_destroy pthread_mutexattr_init pthread_mutexattr_settype \
        pthread_once pthread_self pthread_setspecific pthread_rwlock_rdlock pthread_rwlock_unlock \
        pthread_rwlock_wrlock sched_yield; do
        echo "--undefined=$f"
    done
} > "$prefix/share/ld-opts/darshan-ld-opts"
# HDF5's, for a program linked with HDF5 (darshan-config --hdf5-ld-flags,
# with the static flags; the compiler wrappers add it when they see
# HDF5 on the command line). Apart, because the table it pulls in needs
# HDF5 in the link; without it the program's HDF5 calls are left alone
# (a --wrap with nothing pulling the real function would fail them).
{
    echo '--undefined=darshan_static_hdf5'
    awk '{print "--wrap=" $1; print "--undefined=__wrap_" $1}' "$work/h5wrapped"
} > "$prefix/share/ld-opts/darshan-hdf5-ld-opts"
# PnetCDF's, for a program linked with PnetCDF (darshan-config
# --pnetcdf-ld-flags; the compiler wrappers add it when they see it).
{
    echo '--undefined=darshan_static_pnetcdf'
    awk '{print "--wrap=" $1; print "--undefined=__wrap_" $1}' "$work/ncwrapped"
} > "$prefix/share/ld-opts/darshan-pnetcdf-ld-opts"
version=$("$prefix/bin/darshan-config" --version | awk '{print $3}')
# The .pc file's flags are darshan-config's, with this tree's absolute
# paths replaced by pkg-config variables: ${pcfiledir} is the file's own
# directory, so the prefix follows the tree wherever it is.
real_prefix=$(cd "$prefix" && pwd -P)
relative() { sed -e "s|$real_prefix/lib|\${libdir}|g" -e "s|$real_prefix|\${prefix}|g"; }
libs=$("$prefix/bin/darshan-config" --dyn-ld-flags | relative)
private="$("$prefix/bin/darshan-config" --pre-ld-flags | relative) $("$prefix/bin/darshan-config" --post-ld-flags | relative)"
cat > "$prefix/lib/pkgconfig/darshan-runtime.pc" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib

Name: darshan-runtime
Description: Darshan I/O characterization runtime (darshan-rs)
Version: $version
Libs: $libs
Libs.private: $private
PC
# The modulefile again at C Darshan's Cray paths, which Spack's recipe
# and sites' scripts name (`module use <prefix>/share/craype-2.x/
# modulefiles`): PE 2.x's compiler wrappers read darshan-runtime.pc, as
# above; PE 1.x's add DARSHAN_POST_LINK_OPTS, the static flags. Each finds
# the tree from its own place, four directories down.
deeper() { sed 's|\.\./\.\.\]\]$|../../../..]]|'; }
mkdir -p "$prefix/share/craype-2.x/modulefiles/darshan" "$prefix/share/craype-1.x/modulefiles/darshan"
deeper < "$src/scripts/share/modulefiles/darshan" > "$prefix/share/craype-2.x/modulefiles/darshan/$version"
static_flags="$("$prefix/bin/darshan-config" --pre-ld-flags) $("$prefix/bin/darshan-config" --post-ld-flags)"
static_flags=$(printf '%s' "$static_flags" | sed "s|$real_prefix|\$prefix|g")
deeper < "$src/scripts/share/modulefiles/craype-1.x-darshan" \
    | sed -e "s|@VERSION@|$version|" -e "s|@STATIC_FLAGS@|$static_flags|" \
    > "$prefix/share/craype-1.x/modulefiles/darshan/$version"
chmod 0644 "$prefix/share/craype-2.x/modulefiles/darshan/$version" "$prefix/share/craype-1.x/modulefiles/darshan/$version"
cat > "$prefix/lib/pkgconfig/darshan-util.pc" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: darshan-util
Description: Darshan log reading library (darshan-rs; darshan-util's C API for reading)
Version: 3.5.0
Libs: -L\${libdir} -ldarshan-util
Libs.private: -lpthread -lm -ldl -lrt -lutil
Cflags: -I\${includedir}
PC
# darshan-util's settings (--enable-apmpi-mod, --enable-apxc-mod) into the tools and its
# library.
[ -z "$util_config" ] || util_config_write "$prefix"/bin/* "$prefix"/libexec/* "$prefix/lib/libdarshan-util.so.0.0.0" \
    "$prefix/lib/libdarshan-util.a"
echo "installed in $prefix"
