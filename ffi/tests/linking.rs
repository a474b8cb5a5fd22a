//! The linking matrix of MPI and Fortran programs, each built against
//! the installed tree (`just install` into a scratch prefix) and run
//! with a time limit:
//!
//! {C `mpi_mix`, Fortran `use mpi`, Fortran `use mpi_f08`} ×
//! {LD_PRELOAD, `darshan-config --dyn-ld-flags`, the compiler wrappers
//! (darshan-mpicc / darshan-mpifort), MPICH's profile mechanism, static
//! `--wrap` (`--pre-ld-flags` ... `--post-ld-flags`)} × {Open MPI,
//! MPICH}, and serial Fortran I/O × {LD_PRELOAD, --dyn-ld-flags,
//! darshan-fc, darshan-fc -static}.
//!
//! Every cell's log is checked against the program's known pattern, and
//! every other counter against the LD_PRELOAD run of the same program on
//! the same MPI. MPICH's profile files have no Open MPI counterpart.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::installed::{assert_as_preloaded, bin, config, counters, linked, only_log, prefix, stdout};
use common::mpi::{c, check_mpi_mix_as, read, Log, MixLog, Mpi, Mpich, OpenMpi, NP};
use darshan_log::counters::{mpiio as mx, posix as px};
use darshan_log::modules::{MPIIO, POSIX};

/// How a cell's program is built: the command line (compiler and flags,
/// environment) before the source and output arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    Preload,
    DynLdFlags,
    Wrapper,
    /// MPICC_PROFILE / MPIFORT_PROFILE pointing at the installed .conf.
    ProfileEnv,
    /// `mpicc -profile=<prefix>/share/mpi-profile/darshan-cc`.
    ProfileOption,
    /// libdarshan.a with `--wrap`: `darshan-config --pre-ld-flags` before
    /// the program, `--post-ld-flags` after (against the shared libmpi).
    Static,
    /// MPICC_PROFILE / MPIFORT_PROFILE pointing at the `-static` .conf
    /// (libdarshan.a with `--wrap`, through the profile).
    ProfileStatic,
}

impl How {
    /// Whether the log sees the calls shared libraries make (not with
    /// static `--wrap`: docs/deployment.md).
    fn sees_libraries(self) -> bool {
        !matches!(self, Static | ProfileStatic)
    }
}

use How::*;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Lang {
    C,
    Fortran,
}

fn dyn_ld_flags() -> Vec<String> {
    stdout(&config(&["--dyn-ld-flags"])).split_whitespace().map(String::from).collect()
}

/// The build command of `how` for an MPI program in `lang` on `mpi`.
fn mpi_compiler(mpi: Mpi, lang: Lang, how: How) -> Command {
    let real = if lang == Lang::C { mpi.cc() } else { mpi.fort() };
    let (wrapper, var, profile) = match lang {
        Lang::C => ("darshan-mpicc", "DARSHAN_MPICC", "darshan-cc"),
        Lang::Fortran => ("darshan-mpifort", "DARSHAN_MPIFORT", "darshan-f"),
    };
    let profile_name = profile;
    let profile = prefix().join("share/mpi-profile").join(profile);
    let mut cmd;
    match how {
        Preload => cmd = Command::new(real),
        DynLdFlags => {
            cmd = Command::new(real);
            cmd.args(dyn_ld_flags());
        }
        Wrapper => {
            cmd = Command::new(bin(wrapper));
            cmd.env(var, real);
        }
        ProfileEnv | ProfileStatic => {
            cmd = Command::new(real);
            let var = if lang == Lang::C { "MPICC_PROFILE" } else { "MPIFORT_PROFILE" };
            let conf =
                if how == ProfileStatic { profile.with_file_name(format!("{profile_name}-static")) } else { profile };
            cmd.env(var, conf);
        }
        ProfileOption => {
            cmd = Command::new(real);
            cmd.arg(format!("-profile={}", profile.display()));
        }
        Static => {
            cmd = Command::new(real);
            cmd.args(stdout(&config(&["--pre-ld-flags"])).split_whitespace());
        }
    }
    cmd
}

/// The ways `mpi` can build an instrumented program. Static `--wrap`
/// for Fortran too: the bindings' calls (mpi_init_ calls PMPI_Init inside
/// the shared MPI, where --wrap cannot reach) find the PMPI_ names the
/// executable defines (scripts/install.sh).
fn hows(mpi: Mpi) -> Vec<How> {
    match mpi {
        OpenMpi => vec![Preload, DynLdFlags, Wrapper, Static],
        Mpich => vec![Preload, DynLdFlags, Wrapper, ProfileEnv, ProfileOption, Static, ProfileStatic],
    }
}

/// Build `src` for every way of `mpi`, run each on NP ranks (LD_PRELOAD
/// only for the Preload cell), check each log with `check`, and compare
/// every other counter with the LD_PRELOAD cell's.
///
/// Static cells see only the calls the program's own objects make (and
/// those of libraries linked statically into it), not the POSIX calls
/// inside the shared libmpi: their `check` is told so, and their records
/// are compared with the LD_PRELOAD run's same records.
fn mpi_matrix(mpi: Mpi, lang: Lang, src: &Path, flags: &[&str], tag: &str, check: &dyn Fn(&Log, &Path, bool)) {
    let mut results = Vec::new();
    for how in hows(mpi) {
        let d = common::scratch(&format!("linking-{tag}-{}-{how:?}", mpi.tag()));
        let exe = d.join(tag);
        let mut cmd = mpi_compiler(mpi, lang, how);
        cmd.args(flags).arg("-O2").arg("-o").arg(&exe).arg(src);
        if how == Static {
            cmd.args(stdout(&config(&["--post-ld-flags"])).split_whitespace());
        }
        let built = common::output(&mut cmd);
        assert!(built.status.success(), "{mpi:?} {how:?}: build: {}", String::from_utf8_lossy(&built.stderr));
        let data = d.join("data");
        let mut env = vec![
            ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
            ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
        ];
        if how == Preload {
            env.push(("LD_PRELOAD", common::lib().display().to_string()));
        }
        let out = common::output(mpi.launcher(&env).env_remove("LD_PRELOAD").arg(&exe).arg(&data));
        assert!(out.status.success(), "{mpi:?} {how:?}: {}", String::from_utf8_lossy(&out.stderr));
        let log = only_log(&d);
        // The command line as C Darshan records it: MPI_Init's argv joined
        // by single spaces for C; from /proc/self/cmdline, with a space
        // after every argument, for Fortran (whose MPI_INIT has no argv).
        // Ours once added the trailing space for C too.
        let logged = String::from_utf8_lossy(read(&log).file.job.exe()).into_owned();
        let args = format!("{} {}", exe.display(), data.display());
        let want = if lang == Lang::Fortran { format!("{args} ") } else { args };
        assert_eq!(logged, want, "{mpi:?} {how:?} {lang:?}: the logged command line");
        check(&read(&log), &data, how.sees_libraries());
        results.push((how, counters(&log, &data)));
    }
    assert_as_preloaded(&results, |how| !how.sees_libraries());
}

fn c_mpi_program_every_way(mpi: Mpi) {
    let src = common::root().join("tests/programs/mpi_mix.c");
    mpi_matrix(mpi, Lang::C, &src, &[], "mpi_mix", &|log, data, inside_mpi| {
        check_mpi_mix_as(log, data, if inside_mpi { MixLog::Written } else { MixLog::Static })
    });
}

fn fortran_use_mpi_every_way(mpi: Mpi) {
    let src = common::root().join("tests/programs/fortran_mpiio.F90");
    mpi_matrix(mpi, Lang::Fortran, &src, &[], "fortran_mpi", &|log, data, sees| check_fortran_mpiio(log, data, sees));
}

fn fortran_use_mpi_f08_every_way(mpi: Mpi) {
    let src = common::root().join("tests/programs/fortran_mpiio.F90");
    mpi_matrix(mpi, Lang::Fortran, &src, &["-DF08"], "fortran_f08", &|log, data, sees| {
        check_fortran_mpiio(log, data, sees)
    });
}

on_both_mpis!(c_mpi_program_every_way, fortran_use_mpi_every_way, fortran_use_mpi_f08_every_way);

/// tests/programs/fortran_mpiio.F90's known pattern: MPI-IO through the
/// Fortran bindings, and each rank's Fortran formatted write. With static
/// `--wrap` (`sees_libraries` false) the POSIX calls libgfortran.so and
/// the shared MPI make are not seen (docs/deployment.md): no POSIX record.
fn check_fortran_mpiio(log: &Log, data: &Path, sees_libraries: bool) {
    assert_eq!((log.file.job.nprocs, log.file.header.partial_flag), (NP, 0));
    if !sees_libraries {
        assert!(!log.file.modules_present().contains(&POSIX), "POSIX records under static --wrap");
    }
    for r in (0..NP).filter(|_| sees_libraries) {
        let f = log.one(POSIX, &data.join(format!("rank_{r}.txt")));
        assert_eq!((f.rank, c(f, px::OPENS), c(f, px::BYTES_WRITTEN)), (r, 1, 7), "rank_{r}.txt");
    }
    let m = log.one(MPIIO, &data.join("shared.dat"));
    let want = [
        (mx::COLL_OPENS, NP),
        (mx::INDEP_OPENS, 0),
        (mx::COLL_WRITES, NP),
        (mx::INDEP_WRITES, NP),
        (mx::BYTES_WRITTEN, 800 * NP),
        (mx::MODE, 1 | 4),
        (mx::SIZE_WRITE_AGG_100_1K, 2 * NP),
        (mx::ACCESS1_ACCESS, 400),
        (mx::ACCESS1_COUNT, 2 * NP),
    ];
    assert_eq!(m.rank, -1);
    for (k, v) in want {
        assert_eq!(c(m, k), v, "MPIIO counter {k} of shared.dat");
    }
    if sees_libraries {
        let p = log.one(POSIX, &data.join("shared.dat"));
        assert_eq!((p.rank, c(p, px::BYTES_WRITTEN)), (-1, 800 * NP));
    }
}

/// tests/programs/fortran_io.f90's known pattern, through libgfortran's
/// own open/read/write calls.
fn check_fortran_io(log: &Log, data: &Path) {
    let s = log.one(POSIX, &data.join("stream.bin"));
    assert_eq!(
        (c(s, px::OPENS), c(s, px::WRITES), c(s, px::READS), c(s, px::BYTES_WRITTEN), c(s, px::BYTES_READ)),
        (2, 1, 1, 8000, 8000)
    );
    assert_eq!(c(s, px::SIZE_WRITE_1K_10K), 1);
    let t = log.one(POSIX, &data.join("text.txt"));
    assert_eq!((c(t, px::OPENS), c(t, px::BYTES_WRITTEN), c(t, px::BYTES_READ)), (1, 80, 0));
    assert!(c(t, px::WRITES) >= 1);
}

#[test]
fn serial_fortran_io_is_recorded_preloaded_linked_fully_static_and_through_darshan_fc() {
    let src = common::root().join("tests/programs/fortran_io.f90");
    let mut results = Vec::new();
    // Static: darshan-fc -static, a fully static program (libgfortran's
    // own calls wrapped with the program's).
    for how in [Preload, DynLdFlags, Wrapper, Static] {
        let d = common::scratch(&format!("linking-fortran-io-{how:?}"));
        let exe = d.join("fortran_io");
        let mut fc = match how {
            Wrapper | Static => Command::new(bin("darshan-fc")),
            _ => Command::new("gfortran"),
        };
        if how == DynLdFlags {
            fc.args(dyn_ld_flags());
        }
        if how == Static {
            fc.arg("-static");
        }
        let built = common::output(fc.arg("-O2").arg("-o").arg(&exe).arg(&src));
        assert!(built.status.success(), "{how:?}: build: {}", String::from_utf8_lossy(&built.stderr));
        let data = d.join("data");
        let out = if how == Preload {
            common::output(common::instrumented(&exe, &d).arg(&data))
        } else {
            linked(Command::new(&exe).arg(&data), &d)
        };
        assert!(out.status.success(), "{how:?}: {}", String::from_utf8_lossy(&out.stderr));
        let log = only_log(&d);
        check_fortran_io(&read(&log), &data);
        results.push((how, counters(&log, &data)));
    }
    assert_as_preloaded(&results, |_| false);
}

/// The matrix's checks can fail: a program built with the plain MPI
/// compiler and run without LD_PRELOAD leaves no log at all.
#[test]
fn an_uninstrumented_build_leaves_no_log() {
    let d = common::scratch("linking-none");
    let exe: PathBuf = d.join("mpi_mix");
    let src = common::root().join("tests/programs/mpi_mix.c");
    assert!(common::status(Command::new(OpenMpi.cc()).arg("-o").arg(&exe).arg(&src)).success());
    let env = [("DARSHAN_LOGPATH", d.join("logs").display().to_string())];
    let out = common::output(OpenMpi.launcher(&env).env_remove("LD_PRELOAD").arg(&exe).arg(d.join("data")));
    assert!(out.status.success());
    assert!(common::files(&d.join("logs")).is_empty());
}
