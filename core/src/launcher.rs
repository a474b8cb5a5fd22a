//! Where a process without MPI stands in its job: its rank and the job's
//! size from the launcher's environment (docs/runtime.md, "Jobs without
//! MPI"), and the key that tells which processes are one job.
//!
//! Read once, at start-up, with the rest of the configuration; written
//! into the job metadata of a non-MPI process's log (`job_rank=`,
//! `job_size=`, `job_key=`, `rank_env=`, `ppid=`), where every reader
//! still sees a valid one-process log; `darshan-merge --job` turns the
//! logs of one key into the job's log. An MPI process keeps MPI's rank.

/// Launchers' (rank, size) variables, in the order they are tried after
/// `DARSHAN_RANK`/`DARSHAN_NPROCS` (spec/extensions.md §4). A torchrun
/// worker (`TORCHELASTIC_RUN_ID` set) takes `RANK` first: torchrun
/// started by `srun` runs several workers per Slurm task, which share
/// `SLURM_PROCID` but not `RANK`.
const RANKS: &[(&str, Option<&str>)] = &[
    ("SLURM_PROCID", Some("SLURM_NTASKS")),
    ("RANK", Some("WORLD_SIZE")),
    ("PMI_RANK", Some("PMI_SIZE")),
    ("PMIX_RANK", None),
    ("OMPI_COMM_WORLD_RANK", Some("OMPI_COMM_WORLD_SIZE")),
    ("FLUX_TASK_RANK", Some("FLUX_JOB_SIZE")),
    ("PALS_RANKID", None),
];

/// The process's place in its job, as the environment says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// Rank and the variable it came from; None when no launcher set one.
    pub rank: Option<(i64, &'static str)>,
    /// The job's number of tasks, when the launcher says.
    pub size: Option<i64>,
    /// Which processes are one job: `DARSHAN_JOB_KEY` (darshan-run sets
    /// it), else the launcher's job (and Slurm step); None otherwise
    /// (the log's job id then stands for the job).
    pub key: Option<String>,
}

fn number(v: Option<String>) -> Option<i64> {
    v.and_then(|s| s.trim().parse::<i64>().ok())
}

/// A key from the environment: only bytes that cannot break a metadata
/// line (`key=value\n`) or a file name, at most 64 of them.
fn clean(v: &str) -> String {
    v.chars().filter(|c| c.is_ascii_alphanumeric() || "._-:+".contains(*c)).take(64).collect()
}

impl Launch {
    /// From the variables `var` gives.
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Launch {
        let mut out = Launch::default();
        let torchrun = var("TORCHELASTIC_RUN_ID").is_some();
        let order: Vec<(&'static str, Option<&'static str>)> = if torchrun {
            RANKS.iter().copied().filter(|(r, _)| *r == "RANK").chain(RANKS.iter().copied()).collect()
        } else {
            RANKS.to_vec()
        };
        if let Some(r) = number(var("DARSHAN_RANK")).filter(|r| *r >= 0) {
            out.rank = Some((r, "DARSHAN_RANK"));
        } else if let Some((r, (name, size))) =
            order.iter().find_map(|e| number(var(e.0)).filter(|r| *r >= 0).map(|r| (r, *e)))
        {
            out.rank = Some((r, name));
            out.size = size.and_then(|s| number(var(s))).filter(|n| *n > 0);
        }
        if let Some(n) = number(var("DARSHAN_NPROCS")).filter(|n| *n > 0) {
            out.size = Some(n);
        }
        // A rank past the size the launcher gave is not believed.
        if let (Some((r, _)), Some(n)) = (out.rank, out.size) {
            if r >= n {
                out.size = None;
            }
        }
        let slurm = var("SLURM_JOB_ID").map(|j| match var("SLURM_STEP_ID") {
            Some(s) => format!("slurm-{}.{}", clean(&j), clean(&s)),
            None => format!("slurm-{}", clean(&j)),
        });
        out.key = var("DARSHAN_JOB_KEY")
            .map(|k| clean(&k))
            .filter(|k| !k.is_empty())
            .or(if torchrun { var("TORCHELASTIC_RUN_ID").map(|k| format!("torch-{}", clean(&k))) } else { None })
            .or(slurm)
            .or_else(|| var("FLUX_JOB_ID").map(|k| format!("flux-{}", clean(&k))))
            .or_else(|| var("PBS_JOBID").map(|k| format!("pbs-{}", clean(&k))))
            .or_else(|| var("PMIX_NAMESPACE").map(|k| format!("pmix-{}", clean(&k))));
        out
    }

    /// The job metadata lines of a non-MPI process (`ppid`: its parent).
    pub fn metadata(&self, ppid: i64) -> String {
        let mut s = String::new();
        if let Some((r, from)) = self.rank {
            s.push_str(&format!("job_rank={r}\nrank_env={from}\n"));
        }
        if let Some(n) = self.size {
            s.push_str(&format!("job_size={n}\n"));
        }
        if let Some(k) = &self.key {
            s.push_str(&format!("job_key={k}\n"));
        }
        s.push_str(&format!("ppid={ppid}\n"));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(vars: &[(&str, &str)]) -> Launch {
        Launch::from_env(&|n: &str| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn each_launcher_gives_rank_size_and_key() {
        let s = launch(&[("SLURM_PROCID", "3"), ("SLURM_NTASKS", "4"), ("SLURM_JOB_ID", "77"), ("SLURM_STEP_ID", "0")]);
        assert_eq!(s, Launch { rank: Some((3, "SLURM_PROCID")), size: Some(4), key: Some("slurm-77.0".into()) });
        let t = launch(&[("RANK", "2"), ("WORLD_SIZE", "8"), ("TORCHELASTIC_RUN_ID", "abc")]);
        assert_eq!(t, Launch { rank: Some((2, "RANK")), size: Some(8), key: Some("torch-abc".into()) });
        let p = launch(&[("PMI_RANK", "1"), ("PMI_SIZE", "2")]);
        assert_eq!((p.rank, p.size, p.key), (Some((1, "PMI_RANK")), Some(2), None));
        assert_eq!(launch(&[("PMIX_RANK", "5")]).rank, Some((5, "PMIX_RANK")));
        let o = launch(&[("OMPI_COMM_WORLD_RANK", "0"), ("OMPI_COMM_WORLD_SIZE", "6")]);
        assert_eq!((o.rank, o.size), (Some((0, "OMPI_COMM_WORLD_RANK")), Some(6)));
        let f = launch(&[("FLUX_TASK_RANK", "9"), ("FLUX_JOB_SIZE", "10"), ("FLUX_JOB_ID", "fA")]);
        assert_eq!(f, Launch { rank: Some((9, "FLUX_TASK_RANK")), size: Some(10), key: Some("flux-fA".into()) });
        let c = launch(&[("PALS_RANKID", "4"), ("PBS_JOBID", "12.pbs")]);
        assert_eq!(c, Launch { rank: Some((4, "PALS_RANKID")), size: None, key: Some("pbs-12.pbs".into()) });
        assert_eq!(launch(&[]), Launch::default());
    }

    #[test]
    fn slurm_comes_first_but_a_torchrun_worker_takes_its_own_rank() {
        let both = [("SLURM_PROCID", "1"), ("SLURM_NTASKS", "2"), ("RANK", "5"), ("WORLD_SIZE", "8")];
        assert_eq!(launch(&both).rank, Some((1, "SLURM_PROCID")));
        let mut worker = both.to_vec();
        worker.extend([("TORCHELASTIC_RUN_ID", "r1"), ("SLURM_JOB_ID", "9")]);
        let w = launch(&worker);
        assert_eq!((w.rank, w.size, w.key.as_deref()), (Some((5, "RANK")), Some(8), Some("torch-r1")));
    }

    #[test]
    fn darshan_variables_override_and_bad_values_are_ignored() {
        let o = launch(&[("SLURM_PROCID", "1"), ("SLURM_NTASKS", "2"), ("DARSHAN_RANK", "7"), ("DARSHAN_NPROCS", "9")]);
        assert_eq!((o.rank, o.size), (Some((7, "DARSHAN_RANK")), Some(9)));
        assert_eq!(launch(&[("SLURM_PROCID", "x"), ("PMI_RANK", "2")]).rank, Some((2, "PMI_RANK")));
        assert_eq!(launch(&[("SLURM_PROCID", "-1")]).rank, None);
        // A rank beyond the size: the size is dropped, not the rank.
        let b = launch(&[("SLURM_PROCID", "4"), ("SLURM_NTASKS", "4")]);
        assert_eq!((b.rank, b.size), (Some((4, "SLURM_PROCID")), None));
        let k = launch(&[("DARSHAN_JOB_KEY", "run-1\nrank=0 ok"), ("SLURM_JOB_ID", "3")]);
        assert_eq!(k.key.as_deref(), Some("run-1rank0ok"), "a key cannot make a second metadata line");
    }
}
