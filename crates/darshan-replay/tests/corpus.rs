//! On corpus logs nobody here wrote (IOR, E3SM, HDF5, DLIO and the rest),
//! `darshan-replay --fio` writes a job file fio accepts (`fio
//! --parse-only`), and `--ior` a script of IOR and mdtest runs that keep
//! IOR's rules (ior_rules: IOR is not packaged here), each saying what it
//! left out.

mod ior_rules;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

#[test]
fn every_corpus_logs_job_file_is_one_fio_accepts() {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-corpus");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let mut logs: Vec<PathBuf> = std::fs::read_dir(corpus()).unwrap().map(|e| e.unwrap().path()).collect();
    logs.sort();
    let (mut written, mut nothing) = (0, 0);
    for log in &logs {
        let job = d.join(format!("{}.fio", log.file_stem().unwrap().to_string_lossy()));
        let o = darshan_test_support::output_within(
            Command::new(env!("CARGO_BIN_EXE_darshan-replay")).arg(log).arg("-o").arg(&job),
            Duration::from_secs(60),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        if !o.status.success() {
            // A log without the application's POSIX reads and writes (or
            // one that cannot be read) is one clear line.
            assert_eq!((o.status.code(), err.lines().count()), (Some(1), 1), "{}: {err}", log.display());
            nothing += 1;
            continue;
        }
        let text = std::fs::read_to_string(&job).unwrap();
        assert!(text.contains("; Not reproduced: the time between requests"), "{}", log.display());
        let parsed = darshan_test_support::output_within(
            Command::new("fio").arg("--parse-only").arg(&job),
            Duration::from_secs(60),
        );
        assert!(
            parsed.status.success(),
            "{}: fio --parse-only refused {}:\n{}",
            log.display(),
            job.display(),
            String::from_utf8_lossy(&parsed.stderr)
        );
        written += 1;
    }
    assert!(written >= 50, "{written} job files, {nothing} logs with nothing to replay");
}

/// `--exact` on every corpus log with DXT_POSIX: a job file and iologs
/// fio accepts.
#[test]
fn every_corpus_dxt_logs_exact_replay_is_one_fio_accepts() {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-exact-corpus");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let mut done = 0;
    let mut logs: Vec<PathBuf> = std::fs::read_dir(corpus()).unwrap().map(|e| e.unwrap().path()).collect();
    logs.sort();
    for log in &logs {
        let has_dxt =
            darshan_log::LogFile::open(log).is_ok_and(|l| l.header.mod_map[darshan_log::modules::DXT_POSIX].len > 0);
        if !has_dxt {
            continue;
        }
        let out = d.join(log.file_stem().unwrap());
        let o = darshan_test_support::output_within(
            Command::new(env!("CARGO_BIN_EXE_darshan-replay"))
                .arg("--exact")
                .arg(log)
                .arg("-o")
                .arg(&out)
                .args(["--dir", "/tmp/x"]),
            Duration::from_secs(60),
        );
        assert!(o.status.success(), "{}: {}", log.display(), String::from_utf8_lossy(&o.stderr));
        let parsed = darshan_test_support::output_within(
            Command::new("fio").arg("--parse-only").arg(out.join("job.fio")),
            Duration::from_secs(60),
        );
        assert!(parsed.status.success(), "{}: {}", log.display(), String::from_utf8_lossy(&parsed.stderr));
        done += 1;
    }
    assert!(done >= 10, "{done} logs with DXT_POSIX");
}

/// `--ior` on every corpus log: a POSIX shell script (`sh -n`) whose every
/// run keeps IOR's and mdtest's rules and runs in order, and which says
/// what it left out; run with `echo` for mpirun, it passes each run's
/// file in the directory it was given, spaces and all.
#[test]
fn every_corpus_logs_ior_script_keeps_iors_rules() {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-ior-corpus");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let mut logs: Vec<PathBuf> = std::fs::read_dir(corpus()).unwrap().map(|e| e.unwrap().path()).collect();
    logs.sort();
    let (mut scripts, mut runs, mut apis) = (0, 0, std::collections::BTreeSet::new());
    for log in &logs {
        let script = d.join(format!("{}.sh", log.file_stem().unwrap().to_string_lossy()));
        let o = darshan_test_support::output_within(
            Command::new(env!("CARGO_BIN_EXE_darshan-replay")).arg("--ior").arg(log).arg("-o").arg(&script),
            Duration::from_secs(60),
        );
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!((o.status.code(), err.lines().count()), (Some(1), 1), "{}: {err}", log.display());
            continue;
        }
        let text = std::fs::read_to_string(&script).unwrap();
        assert!(text.contains("# Not reproduced: the time between requests"), "{}", log.display());
        let parsed = ior_rules::parse_script(&text).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
        assert!(!parsed.is_empty(), "{}", log.display());
        for r in &parsed {
            if let ior_rules::Run::Ior(r) = r {
                apis.insert(r.api.clone());
            }
        }
        let syntax =
            darshan_test_support::output_within(Command::new("sh").arg("-n").arg(&script), Duration::from_secs(60));
        assert!(syntax.status.success(), "{}: {}", script.display(), String::from_utf8_lossy(&syntax.stderr));
        let dir = d.join("replay files");
        let echoed = darshan_test_support::output_within(
            Command::new("sh").arg(&script).env("MPIRUN", "echo").env("DIR", &dir),
            Duration::from_secs(60),
        );
        let out = String::from_utf8_lossy(&echoed.stdout);
        assert_eq!(out.lines().count(), parsed.len(), "{}:\n{out}", script.display());
        let within = format!("{}/g", dir.display());
        assert!(out.lines().all(|l| l.contains(&within) || l.contains("mdtest")), "{out}");
        scripts += 1;
        runs += parsed.len();
    }
    assert!(scripts >= 50, "{scripts} scripts");
    // The corpus has POSIX, MPI-IO, HDF5 and PnetCDF jobs.
    assert_eq!(apis.into_iter().collect::<Vec<_>>(), ["HDF5", "MPIIO", "NCMPI", "POSIX"], "{runs} runs");
}

/// The oracle itself refuses what IOR refuses (ValidateTests' messages),
/// and a read of a file no earlier run made that large.
#[test]
fn the_ior_rules_refuse_what_ior_refuses() {
    let head = "set -e\nMPIRUN=${MPIRUN:-mpirun}\n";
    let ok = "$MPIRUN -np 4 $IOR -a POSIX -w -k -t 4096 -b 8192 -s 2 -o \"$DIR\"/g1-f";
    assert!(ior_rules::parse_script(&format!("{head}{ok}\n")).is_ok());
    for (bad, why) in [
        ("-a POSIX -w -k -t 4096 -b 6144 -s 1", "multiple of transfer size"),
        ("-a POSIX -w -k -t 100 -b 200 -s 1", "multiple of access size"),
        ("-a POSIX -z -w -k -t 4096 -b 4096 -s 1", "randomize"),
        ("-a HDF5 -z -w -k -t 4096 -b 8192 -s 1", "HDF5"),
        ("-a NCMPI -F -w -k -t 4096 -b 8192 -s 1", "file-per-proc"),
        ("-a POSIX -w -k -t 8192 -b 4096 -s 1", "multiple of transfer size"),
        ("-a POSIX -w -k -t 4096 -b 8192 -s 1 -q 3", "no such option"),
        ("-a POSIX -r -k -t 4096 -b 8192 -s 1", "before a run made it"),
    ] {
        let e = ior_rules::parse_script(&format!("{head}$MPIRUN -np 4 $IOR {bad} -o \"$DIR\"/g1-f\n")).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    let e = ior_rules::parse_script(&format!("{head}$MPIRUN -np 4 $MDTEST -a POSIX -F -u -n 3 -d \"$DIR\"/m1 -T\n"))
        .unwrap_err();
    assert!(e.contains("no run created"), "{e}");
}

/// The corpus's IOR runs were made by `ior -a POSIX|HDF5|NCMPI` and
/// nothing else (their logs' command lines say so): IOR's defaults, 256
/// KiB transfers in one 1 MiB block per task and one segment
/// (init_IOR_Param_t), on as many tasks as the log's processes, writing
/// then reading a shared file. `--ior` must give those runs back.
#[test]
fn iors_own_logs_replay_as_the_ior_commands_that_made_them() {
    let mut seen = 0;
    for (stem, api, np) in [
        ("ior_daos__snyder_ior-POSIX_id1057716-202103_11-8-64415-6936117869459351096_1", "POSIX", 16),
        ("ior_pnetcdf_hdf5__shane_ior-HDF5_id438090-438090_11-9-41522-17417065676046418211_1", "HDF5", 4),
        ("ior_pnetcdf_hdf5__shane_ior-PNETCDF_id438100-438100_11-9-41525-10280033558448664385_1", "NCMPI", 4),
    ] {
        let log = corpus().join(format!("{stem}.darshan"));
        let o = darshan_test_support::output_within(
            Command::new(env!("CARGO_BIN_EXE_darshan-replay")).arg("--ior").arg(&log),
            Duration::from_secs(60),
        );
        let text = String::from_utf8_lossy(&o.stdout);
        let exe = format!("ior -a {api}");
        assert!(text.lines().nth(2).is_some_and(|l| l.ends_with(&exe)), "{stem}: {text}");
        let runs: Vec<ior_rules::Ior> = ior_rules::parse_script(&text)
            .unwrap()
            .into_iter()
            .filter_map(|r| if let ior_rules::Run::Ior(r) = r { Some(r) } else { None })
            .collect();
        let got: Vec<_> = runs
            .iter()
            .map(|r| (r.np, r.api.as_str(), r.transfer, r.block, r.segments, r.has('F'), r.has('w')))
            .collect();
        let want = vec![(np, api, 262144, 1048576, 1, false, true), (np, api, 262144, 1048576, 1, false, false)];
        assert_eq!(got, want, "{stem}:\n{text}");
        seen += 1;
    }
    assert_eq!(seen, 3);
}

/// Regression: a group's file names were a list searched for every
/// record, so the 200,000-file series of the corpus's open storm took a
/// minute (58 s here) in each mode. As a set it is one pass; the bound
/// only keeps a regression from hanging the suite. And the storm is one
/// process's (its log: 1 process, 200,000 files written once each): it
/// replays as one job going through 200,000 files, not 200,000 jobs.
#[test]
fn a_series_of_200000_files_is_grouped_in_one_pass() {
    let log = corpus().join("../big/open_storm_200k.darshan");
    for mode in [&["--ior"][..], &[]] {
        let o = darshan_test_support::output_within(
            Command::new(env!("CARGO_BIN_EXE_darshan-replay")).args(mode).arg(&log),
            Duration::from_secs(30),
        );
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{mode:?}: {}", String::from_utf8_lossy(&o.stderr));
        // The storm's files (the corpus's open_storm_200k.total.txt: 200,000
        // opens, 200,000 writes of 100 B) are one series, `f#`.
        let head = &text[..text.len().min(3000)];
        assert!(text.contains("/f#: 1 process with 200000 files each"), "{mode:?}:\n{head}");
        let one_job = if mode.is_empty() {
            "nrfiles=200000\nfile_service_type=sequential\nnumjobs=1\nrw=write\n"
        } else {
            "$MPIRUN -np 1 $IOR -a POSIX -F -w "
        };
        assert!(text.contains(one_job), "{mode:?}:\n{head}");
    }
}
