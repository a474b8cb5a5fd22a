//! What `darshan-config` reports: where the installed tree is, which
//! modules and features the runtime has, and the link flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use darshan_log::defaults::JOBID_ENVS;

/// The C tool's feature switches, in its `--all` order: (name, built).
/// "Built" as the C tool means it: compiled in (NULL is, and records only
/// when enabled with DARSHAN_MOD_ENABLE).
pub const FEATURES: [(&str, bool); 20] = [
    ("ld-preload", true),
    ("cuserid", false),
    // As given at install (`feature`).
    ("group-readable-logs", false),
    ("mmap-logs", true),
    ("null-mod", true),
    ("posix-mod", true),
    ("stdio-mod", true),
    ("dxt-mod", true),
    ("heatmap-mod", true),
    ("mpiio-mod", true),
    // As given at install (`feature`).
    ("apmpi-mod", false),
    ("apmpi-coll-sync", false),
    // AutoPerf's Cray XC module reads Aries router counters through
    // PAPI; the runtime has none (--enable-apxc-mod is darshan-util's
    // option here: the tools read its records).
    ("apxc-mod", false),
    ("hdf5-mod", true),
    ("pnetcdf-mod", true),
    ("daos-mod", false),
    // BG/Q's data come only from a BG/Q kernel (built with --cfg
    // darshan_bgq); a recording replayed elsewhere is for tests.
    ("bgq-mod", false),
    // Built, without liblustreapi (modules/lustre).
    ("lustre-mod", true),
    ("mdhim-mod", false),
    ("ldms-mod", false),
];

impl Facts {
    /// Whether the feature `name` is on, `built` as FEATURES says, but
    /// what install.sh sets as given at install: group-readable logs
    /// (GROUP_READABLE_LOGS), AutoPerf's APMPI module (MOD_ENABLE APMPI,
    /// --enable-apmpi-mod; the wrappers are always in the library, off
    /// unless switched on) and its sync times (APMPI_COLL_SYNC).
    pub fn feature(&self, name: &str, built: bool) -> bool {
        match name {
            "group-readable-logs" => self.installed("GROUP_READABLE_LOGS").is_some(),
            "apmpi-mod" => self.installed("MOD_ENABLE").is_some_and(|m| m.split(',').any(|m| m == "APMPI")),
            "apmpi-coll-sync" => self.installed("APMPI_COLL_SYNC").is_some(),
            _ => built,
        }
    }
}

/// _exit is wrapped: a non-MPI process that leaves through it still
/// writes its log.
pub const EXIT_WRAPPER: bool = true;

/// The C compiler that built the library's C part (ffi/src/shim.c, with
/// the `cc` crate's default).
pub const CC: &str = "cc";

/// What is missing from the installed tree for the answer asked for.
#[derive(Debug, thiserror::Error)]
pub enum FactsError {
    #[error("cannot find my own path: {0}")]
    OwnPath(#[source] std::io::Error),
    #[error("no libdarshan.so in {} (install with `just install PREFIX`)", .0.display())]
    NoLibrary(PathBuf),
    /// An ld-opts file `just install` makes, needed for static linking.
    #[error("no {} (static linking needs the installed tree: `just install PREFIX`)", .0.display())]
    NoLdOpts(PathBuf),
}

pub struct Facts {
    /// Directory holding libdarshan.so (and libdarshan.a).
    lib: PathBuf,
    /// The configuration written into the installed library, read once.
    installed: std::cell::OnceCell<BTreeMap<String, String>>,
}

impl Facts {
    /// The tree this program was installed in: `<prefix>/bin/darshan-config`
    /// with the library in `<prefix>/lib`; or, run from a cargo build
    /// directory, the library next to it.
    pub fn of_this_install() -> Result<Facts, FactsError> {
        let exe = std::env::current_exe().map_err(FactsError::OwnPath)?;
        let exe = exe.canonicalize().unwrap_or(exe);
        let bin = exe.parent().unwrap_or(Path::new("/"));
        let candidates = [bin.join("../lib"), bin.to_path_buf()];
        let lib = candidates
            .iter()
            .find(|d| d.join("libdarshan.so").is_file())
            .ok_or_else(|| FactsError::NoLibrary(candidates[0].clone()))?;
        let lib = lib.canonicalize().unwrap_or_else(|_| lib.clone());
        Ok(Facts { lib, installed: Default::default() })
    }

    pub fn lib_dir(&self) -> String {
        self.lib.display().to_string()
    }

    /// A setting given at install (`install.sh --log-path DIR ...`: the
    /// configuration lines written into the installed library,
    /// darshan_log::defaults::INSTALLED_CONFIG_MARKER), read back from the
    /// library itself, so the answer is what the runtime will use: the
    /// value of the last line with that keyword.
    pub fn installed(&self, key: &str) -> Option<&str> {
        self.installed.get_or_init(|| installed_config(&self.lib.join("libdarshan.so"))).get(key).map(String::as_str)
    }

    pub fn version(&self) -> String {
        // The third word is the Darshan release whose logs (format 3.41)
        // and settings this runtime matches, for scripts that compare it.
        format!("Darshan Runtime 3.5.0 (darshan-rs {})", env!("CARGO_PKG_VERSION"))
    }

    /// Link against libdarshan.so, found at run time through the rpath:
    /// no LD_PRELOAD needed. `-no-as-needed` keeps it even though the
    /// program calls none of its symbols by name (it interposes libc's).
    pub fn dyn_ld_flags(&self) -> String {
        let lib = self.lib_dir();
        format!("-L{lib} -Wl,-rpath={lib} -Wl,-no-as-needed -ldarshan")
    }

    /// The ld-opts file of the installed tree (`--wrap=` for every
    /// function the runtime interposes), made by `just install`.
    fn ld_opts(&self) -> Result<PathBuf, FactsError> {
        self.installed_ld_opts("darshan-ld-opts")
    }

    fn installed_ld_opts(&self, name: &str) -> Result<PathBuf, FactsError> {
        let f = self.lib.join("../share/ld-opts").join(name);
        match f.canonicalize() {
            Ok(f) => Ok(f),
            Err(_) => Err(FactsError::NoLdOpts(f)),
        }
    }

    /// Before the program's objects: the static library and the ld-opts
    /// file, which wraps every interposed function and pulls in the
    /// table of real functions (libdarshan.a as `just install` makes it).
    pub fn pre_ld_flags(&self) -> Result<String, FactsError> {
        let opts = self.ld_opts()?;
        Ok(format!("-L{} -l:libdarshan.a -Wl,@{}", self.lib_dir(), opts.display()))
    }

    /// With the static flags, for a program linked with HDF5 (static or
    /// shared): the HDF5 functions wrapped too, and the static library's
    /// table of them pulled in, which needs HDF5 in the link (so it is
    /// not part of --pre-ld-flags, as it is of the C runtime's built with
    /// HDF5, where every static link then needs HDF5).
    pub fn hdf5_ld_flags(&self) -> Result<String, FactsError> {
        let opts = self.installed_ld_opts("darshan-hdf5-ld-opts")?;
        Ok(format!("-Wl,@{}", opts.display()))
    }

    /// With the static flags, for a program linked with PnetCDF, as
    /// [`Self::hdf5_ld_flags`] for HDF5.
    pub fn pnetcdf_ld_flags(&self) -> Result<String, FactsError> {
        let opts = self.installed_ld_opts("darshan-pnetcdf-ld-opts")?;
        Ok(format!("-Wl,@{}", opts.display()))
    }

    /// After the program's objects: the static library again (for the
    /// wrappers the program's own objects asked for) and what the Rust
    /// runtime in it needs from the system.
    pub fn post_ld_flags(&self) -> Result<String, FactsError> {
        self.ld_opts()?;
        Ok(format!("-L{} -l:libdarshan.a -lpthread -lrt -lm -ldl", self.lib_dir()))
    }
}

/// The keyword and first argument (empty for a keyword without one, as
/// GROUP_READABLE_LOGS) of each line of the configuration in the library
/// at `lib`, as the runtime reads them (a later line wins); none when
/// nothing was installed.
fn installed_config(lib: &Path) -> BTreeMap<String, String> {
    let marker = darshan_log::defaults::INSTALLED_CONFIG_MARKER;
    let Ok(bytes) = std::fs::read(lib) else { return BTreeMap::new() };
    let Some(at) = bytes.windows(marker.len()).position(|w| w == marker) else { return BTreeMap::new() };
    let text = darshan_log::defaults::installed_config(&bytes[at + marker.len()..]).unwrap_or("");
    text.lines()
        .filter_map(darshan_log::defaults::config_words)
        .map(|(key, mut args)| (key.to_string(), args.next().unwrap_or_default().to_string()))
        .collect()
}
