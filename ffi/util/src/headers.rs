//! darshan-util 3.5.0's C headers for this library (`darshan-logutils.h`
//! and the log-format headers it includes), written from the format
//! crate: every counter enum and name list from `layout!`'s names, every
//! module id, name and version from `darshan_log::modules`. C programs
//! compiled against darshan-util (C Darshan's own `darshan-parser.c`,
//! its accumulator unit test among them) compile against these unchanged.
//! The structs below are darshan-util's, field for field: the layouts the
//! library hands records out in (records.rs).
//!
//! Declared: what the library exports. Left out, as it does not export
//! it: the uthash table of names (`darshan_log_get_namehash`,
//! `_put_namehash`, and `struct lustre_record_ref`, which
//! darshan-dxt-parser.c tables LUSTRE records in) where the library was
//! built without uthash's header.

use std::ffi::CStr;
use std::fmt::Write;

use darshan_log::counters as c;
use darshan_log::modules::{KNOWN_MODULE_COUNT, MODULE_NAMES, WRITE_VERSIONS};

/// Per module id: its C id constant, version macro and function table
/// (`None`: darshan-util 3.5.0 built without AutoPerf has none).
const IDS: [(&str, &str, Option<&str>); KNOWN_MODULE_COUNT] = [
    ("DARSHAN_NULL_MOD", "DARSHAN_NULL_VER", None),
    ("DARSHAN_POSIX_MOD", "DARSHAN_POSIX_VER", Some("posix_logutils")),
    ("DARSHAN_MPIIO_MOD", "DARSHAN_MPIIO_VER", Some("mpiio_logutils")),
    ("DARSHAN_H5F_MOD", "DARSHAN_H5F_VER", Some("hdf5_file_logutils")),
    ("DARSHAN_H5D_MOD", "DARSHAN_H5D_VER", Some("hdf5_dataset_logutils")),
    ("DARSHAN_PNETCDF_FILE_MOD", "DARSHAN_PNETCDF_FILE_VER", Some("pnetcdf_file_logutils")),
    ("DARSHAN_PNETCDF_VAR_MOD", "DARSHAN_PNETCDF_VAR_VER", Some("pnetcdf_var_logutils")),
    ("DARSHAN_BGQ_MOD", "DARSHAN_BGQ_VER", Some("bgq_logutils")),
    ("DARSHAN_LUSTRE_MOD", "DARSHAN_LUSTRE_VER", Some("lustre_logutils")),
    ("DARSHAN_STDIO_MOD", "DARSHAN_STDIO_VER", Some("stdio_logutils")),
    ("DXT_POSIX_MOD", "DXT_POSIX_VER", Some("dxt_posix_logutils")),
    ("DXT_MPIIO_MOD", "DXT_MPIIO_VER", Some("dxt_mpiio_logutils")),
    ("DARSHAN_MDHIM_MOD", "DARSHAN_MDHIM_VER", Some("mdhim_logutils")),
    ("DARSHAN_APXC_MOD", "__APXC_VER", None),
    ("DARSHAN_APMPI_MOD", "__APMPI_VER", None),
    ("DARSHAN_HEATMAP_MOD", "DARSHAN_HEATMAP_VER", Some("heatmap_logutils")),
    ("DARSHAN_DFS_MOD", "DARSHAN_DFS_VER", Some("dfs_logutils")),
    ("DARSHAN_DAOS_MOD", "DARSHAN_DAOS_VER", Some("daos_logutils")),
];

/// The module (table index) whose version a version macro names.
fn version_of(macro_name: &str) -> u32 {
    let id = IDS.iter().position(|&(_, v, _)| v == macro_name).expect("a version macro of IDS");
    WRITE_VERSIONS[id]
}

/// A set of counters: its prefix (X-list `<P>_COUNTERS`), the stem of its
/// enums (`darshan_<stem>_indices`), its names (the last is
/// `<P>_NUM_INDICES`) and float counter names, if it has them.
struct Set {
    prefix: &'static str,
    stem: &'static str,
    names: &'static [&'static CStr],
    fnames: Option<&'static [&'static CStr]>,
}

/// One log-format header: `darshan-<file>-log-format.h`.
struct Format {
    file: &'static str,
    versions: &'static [&'static str],
    defines: &'static str,
    sets: &'static [Set],
    structs: &'static str,
}

macro_rules! set {
    ($m:ident, $prefix:literal, $stem:literal) => {
        Set { prefix: $prefix, stem: $stem, names: &c::$m::C_NAMES, fnames: Some(&c::$m::F_C_NAMES) }
    };
}

const PLAIN: &str = "
struct darshan_{s}
{
    struct darshan_base_record base_rec;
{file}    int64_t counters[{P}_NUM_INDICES];
    double fcounters[{P}_F_NUM_INDICES];
};
";

const FORMATS: &[Format] = &[
    Format {
        file: "null",
        versions: &["DARSHAN_NULL_VER"],
        defines: "",
        sets: &[set!(null, "NULL", "null")],
        structs: "",
    },
    Format {
        file: "posix",
        versions: &["DARSHAN_POSIX_VER"],
        defines: "",
        sets: &[set!(posix, "POSIX", "posix")],
        structs: "",
    },
    Format {
        file: "mpiio",
        versions: &["DARSHAN_MPIIO_VER"],
        defines: "",
        sets: &[set!(mpiio, "MPIIO", "mpiio")],
        structs: "",
    },
    Format {
        file: "hdf5",
        versions: &["DARSHAN_H5F_VER", "DARSHAN_H5D_VER"],
        defines: "#define H5D_MAX_NDIMS 5\n",
        sets: &[set!(h5f, "H5F", "h5f"), set!(h5d, "H5D", "h5d")],
        structs: "",
    },
    Format {
        file: "pnetcdf",
        versions: &["DARSHAN_PNETCDF_FILE_VER", "DARSHAN_PNETCDF_VAR_VER"],
        defines: "#define PNETCDF_VAR_MAX_NDIMS 5\n",
        sets: &[set!(pnetcdf_file, "PNETCDF_FILE", "pnetcdf_file"), set!(pnetcdf_var, "PNETCDF_VAR", "pnetcdf_var")],
        structs: "",
    },
    Format { file: "bgq", versions: &["DARSHAN_BGQ_VER"], defines: "", sets: &[set!(bgq, "BGQ", "bgq")], structs: "" },
    Format {
        file: "lustre",
        versions: &["DARSHAN_LUSTRE_VER"],
        defines: "typedef int64_t OST_ID;\n",
        sets: &[Set { prefix: "LUSTRE_COMP", stem: "lustre", names: &c::lustre_comp::C_NAMES, fnames: None }],
        structs: "
struct darshan_lustre_component
{
    int64_t counters[LUSTRE_COMP_NUM_INDICES];
    char pool_name[16];
};

struct darshan_lustre_record
{
    struct darshan_base_record base_rec;
    int64_t num_comps;
    int64_t num_stripes;
    struct darshan_lustre_component *comps;
    OST_ID *ost_ids;
};

#define LUSTRE_RECORD_SIZE(comps, stripes) \\
     (sizeof(struct darshan_base_record) + (2*sizeof(int64_t)) + \\
     (sizeof(struct darshan_lustre_component) * (comps)) + \\
     (sizeof(OST_ID) * (stripes)))
",
    },
    Format {
        file: "stdio",
        versions: &["DARSHAN_STDIO_VER"],
        defines: "",
        sets: &[set!(stdio, "STDIO", "stdio")],
        structs: "",
    },
    Format {
        file: "dxt",
        versions: &["DXT_POSIX_VER", "DXT_MPIIO_VER"],
        defines: "#define HOSTNAME_SIZE 64\n",
        sets: &[],
        structs: "
typedef struct segment_info {
    int64_t offset;
    int64_t length;
    double start_time;
    double end_time;
} segment_info;

struct dxt_file_record {
    struct darshan_base_record base_rec;
    int64_t shared_record;
    char hostname[HOSTNAME_SIZE];
    int64_t write_count;
    int64_t read_count;
};
",
    },
    Format {
        file: "mdhim",
        versions: &["DARSHAN_MDHIM_VER"],
        defines: "",
        sets: &[set!(mdhim, "MDHIM", "mdhim")],
        structs: "
struct darshan_mdhim_record
{
    struct darshan_base_record base_rec;
    int64_t counters[MDHIM_NUM_INDICES];
    double fcounters[MDHIM_F_NUM_INDICES];
    int64_t server_histogram[1];
};

#define MDHIM_RECORD_SIZE(servers) (sizeof(struct darshan_mdhim_record) + sizeof(int64_t) * ((servers) - 1) )
",
    },
    Format {
        file: "heatmap",
        versions: &["DARSHAN_HEATMAP_VER"],
        defines: "",
        sets: &[],
        structs: "
struct darshan_heatmap_record
{
    struct darshan_base_record base_rec;
    double  bin_width_seconds;
    int64_t nbins;
    int64_t *write_bins;
    int64_t *read_bins;
};
",
    },
    Format {
        file: "dfs",
        versions: &["DARSHAN_DFS_VER"],
        defines: "",
        sets: &[set!(dfs, "DFS", "dfs")],
        structs: "
struct darshan_dfs_file
{
    struct darshan_base_record base_rec;
    int64_t counters[DFS_NUM_INDICES];
    double fcounters[DFS_F_NUM_INDICES];
    unsigned char pool_uuid[16];
    unsigned char cont_uuid[16];
};
",
    },
    Format {
        file: "daos",
        versions: &["DARSHAN_DAOS_VER"],
        defines: "",
        sets: &[set!(daos, "DAOS", "daos")],
        structs: "
struct darshan_daos_object
{
    struct darshan_base_record base_rec;
    int64_t counters[DAOS_NUM_INDICES];
    double fcounters[DAOS_F_NUM_INDICES];
    unsigned char pool_uuid[16];
    unsigned char cont_uuid[16];
    uint64_t oid_hi;
    uint64_t oid_lo;
};
",
    },
];

/// The struct of a module whose records are its counters (after the id of
/// their file's record, for a dataset or a variable), named as
/// darshan-util names it.
fn plain_struct(set: &Set) -> Option<String> {
    let (name, file_rec_id) = match set.stem {
        "null" => ("null_record", false),
        "posix" => ("posix_file", false),
        "mpiio" => ("mpiio_file", false),
        "stdio" => ("stdio_file", false),
        "h5f" => ("hdf5_file", false),
        "h5d" => ("hdf5_dataset", true),
        "pnetcdf_file" => ("pnetcdf_file", false),
        "pnetcdf_var" => ("pnetcdf_var", true),
        "bgq" => ("bgq_record", false),
        _ => return None,
    };
    let file = if file_rec_id { "    uint64_t file_rec_id;\n" } else { "" };
    Some(PLAIN.replace("{s}", name).replace("{P}", set.prefix).replace("{file}", file))
}

/// `#define <P>_COUNTERS X(..) ...`, as darshan-util's headers list them.
fn x_list(out: &mut String, list: &str, names: &[&CStr]) {
    let _ = writeln!(out, "#define {list} \\");
    for (k, n) in names.iter().enumerate() {
        let end = if k + 1 < names.len() { " \\" } else { "" };
        let _ = writeln!(out, "    X({}){end}", n.to_str().expect("ASCII names"));
    }
    out.push('\n');
}

/// One log-format header's text.
fn format_header(f: &Format) -> String {
    let guard = format!("__DARSHAN_{}_LOG_FORMAT_H", f.file.to_uppercase());
    let mut out = format!("/* darshan-{}-log-format.h: written by darshan-util-headers. */\n", f.file);
    let _ = writeln!(out, "#ifndef {guard}\n#define {guard}\n");
    for v in f.versions {
        let _ = writeln!(out, "#define {v} {}", version_of(v));
    }
    out += f.defines;
    out.push('\n');
    for s in f.sets {
        x_list(&mut out, &format!("{}_COUNTERS", s.prefix), s.names);
        if let Some(fnames) = s.fnames {
            x_list(&mut out, &format!("{}_F_COUNTERS", s.prefix), fnames);
        }
    }
    if !f.sets.is_empty() {
        out += "#define X(a) a,\n";
        for s in f.sets {
            let _ = writeln!(out, "enum darshan_{}_indices\n{{\n    {}_COUNTERS\n}};", s.stem, s.prefix);
        }
        for s in f.sets.iter().filter(|s| s.fnames.is_some()) {
            let _ = writeln!(out, "enum darshan_{}_f_indices\n{{\n    {}_F_COUNTERS\n}};", s.stem, s.prefix);
        }
        out += "#undef X\n";
    }
    for s in f.sets {
        out += &plain_struct(s).unwrap_or_default();
    }
    out += f.structs;
    let _ = writeln!(out, "\n#endif /* {guard} */");
    out
}

/// `darshan-log-format.h`: the job, header and record basics, and the
/// module ids with their names and versions.
fn log_format_header() -> String {
    let mut ids = String::from("#define DARSHAN_MODULE_IDS \\\n");
    for (k, &(id, ver, table)) in IDS.iter().enumerate() {
        let table = table.map_or("NULL".to_string(), |t| format!("&{t}"));
        let end = if k + 1 < KNOWN_MODULE_COUNT { " \\" } else { "" };
        let _ = writeln!(ids, "    X({id}, \"{}\", {ver}, {table}){end}", MODULE_NAMES[k]);
    }
    let includes: String = FORMATS.iter().map(|f| format!("#include \"darshan-{}-log-format.h\"\n", f.file)).collect();
    include_str!("headers/darshan-log-format.h.in").replace("@INCLUDES@", &includes).replace("@MODULE_IDS@", &ids)
}

/// `darshan-<file>-logutils.h`: a module's name arrays and function table.
fn logutils_header(f: &Format) -> String {
    let guard = format!("__DARSHAN_{}_LOG_UTILS_H", f.file.to_uppercase());
    let mut out = format!("/* darshan-{}-logutils.h: written by darshan-util-headers. */\n", f.file);
    let _ = writeln!(out, "#ifndef {guard}\n#define {guard}\n");
    for s in f.sets {
        let stem = s.prefix.to_lowercase();
        let _ = writeln!(out, "extern char *{stem}_counter_names[];");
        if s.fnames.is_some() {
            let _ = writeln!(out, "extern char *{stem}_f_counter_names[];");
        }
    }
    for (_, ver, table) in IDS {
        if let (true, Some(t)) = (f.versions.contains(&ver), table) {
            let _ = writeln!(out, "extern struct darshan_mod_logutil_funcs {t};");
        }
    }
    if f.file == "null" {
        out += "extern struct darshan_mod_logutil_funcs null_logutils;\n";
    }
    if f.file == "dxt" {
        out += DXT_PRINTS;
    }
    let _ = writeln!(out, "\n#endif /* {guard} */");
    out
}

/// darshan-dxt-parser's printing (printing.rs). Its LUSTRE reference is
/// complete where the library has uthash (NAMEHASH_TYPES).
const DXT_PRINTS: &str = "
struct lustre_record_ref;
void dxt_log_print_posix_file(void *file_rec, char *file_name,
        char *mnt_pt, char *fs_type, struct lustre_record_ref *rec_ref);
void dxt_log_print_mpiio_file(void *file_rec,
        char *file_name, char *mnt_pt, char *fs_type);
";

/// The table of names' types, where the library has the table
/// (`cfg(uthash)`: built with uthash's header).
const NAMEHASH_TYPES: &str = "
#include \"uthash-1.9.2/src/uthash.h\"

struct darshan_name_record_ref
{
    struct darshan_name_record *name_record;
    UT_hash_handle hlink;
};

/* a LUSTRE record, as darshan-dxt-parser tables them for
 * dxt_log_print_posix_file */
struct lustre_record_ref
{
    struct darshan_lustre_record *rec;
    UT_hash_handle hlink;
};
";

const NAMEHASH_CALLS: &str = "int darshan_log_get_namehash(darshan_fd fd, struct darshan_name_record_ref **hash);
int darshan_log_get_filtered_namehash(darshan_fd fd, struct darshan_name_record_ref **hash,
    darshan_record_id *whitelist, int whitelist_count);
int darshan_log_put_namehash(darshan_fd fd, struct darshan_name_record_ref *hash);
";

/// Every header, by file name.
pub fn headers() -> Vec<(String, String)> {
    let mut all = vec![("darshan-log-format.h".to_string(), log_format_header())];
    for f in FORMATS {
        all.push((format!("darshan-{}-log-format.h", f.file), format_header(f)));
        all.push((format!("darshan-{}-logutils.h", f.file), logutils_header(f)));
    }
    let utils: String = FORMATS.iter().map(|f| format!("#include \"darshan-{}-logutils.h\"\n", f.file)).collect();
    let (types, calls) = if cfg!(uthash) { (NAMEHASH_TYPES, NAMEHASH_CALLS) } else { ("", "") };
    let logutils = include_str!("headers/darshan-logutils.h.in")
        .replace("@LOGUTILS@", &utils)
        .replace("@NAMEHASH_TYPES@", types)
        .replace("@NAMEHASH_CALLS@", calls);
    all.push(("darshan-logutils.h".into(), logutils));
    if cfg!(uthash) {
        all.push(("uthash-1.9.2/src/uthash.h".into(), include_str!("headers/uthash.h.in").into()));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_with_a_function_table_has_a_header_declaring_it() {
        let all: String = headers().into_iter().map(|(_, text)| text).collect();
        for (id, ver, table) in IDS {
            assert!(all.contains(&format!("#define {ver} ")) || ver.starts_with("__"), "{id}: no {ver}");
            if let Some(t) = table {
                assert!(all.contains(&format!("extern struct darshan_mod_logutil_funcs {t};")), "{t}");
            }
        }
    }
}
