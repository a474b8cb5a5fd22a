//! PROCESSES (id 62, ours): the processes of a job log, one record
//! each, written by `darshan-merge --job` from the per-process logs it
//! merged (a job log keeps each record under its rank, so a rank's
//! forked or spawned workers are otherwise not told apart). Record id:
//! the process's index in the job (0-based, rank then start order);
//! rank: its rank in the job. Figures are the application's own data
//! (software loading, `crate::software`, apart); times are seconds
//! since the job's start. docs/log-format.md §12.

/// What a process is to its job (`ROLE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A rank's first process (or, for logs that say nothing of
    /// their place, a process given a rank by start order).
    Rank = 0,
    /// Forked by another process of the job (`fork_parent=`).
    Forked = 1,
    /// Started (fork + exec) by a process of the same rank.
    Spawned = 2,
    /// Started processes of other ranks and has no rank of its own.
    Launcher = 3,
}

impl Role {
    pub fn from_word(w: i64) -> Option<Role> {
        [Role::Rank, Role::Forked, Role::Spawned, Role::Launcher].into_iter().find(|r| *r as i64 == w)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Rank => "rank",
            Role::Forked => "forked worker",
            Role::Spawned => "spawned worker",
            Role::Launcher => "launcher",
        }
    }
}

/// Where the timeline bins came from (`TIMELINE_SOURCE`).
pub const TIMELINE_NONE: i64 = 0;
pub const TIMELINE_HEATMAP: i64 = 1;
pub const TIMELINE_DXT: i64 = 2;
/// Bins of the read timeline: the job's run time in equal parts.
pub const BINS: usize = 32;
pub const NUM_INDICES: usize = 43;
pub const F_NUM_INDICES: usize = 8;
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
crate::layout! {
    prefix "PROCESSES";
    counters {
        PID = 0,
        PARENT_PID = 1,
        ROLE = 2,
        RANKED_BY_START = 3,
        READS = 4,
        WRITES = 5,
        BYTES_READ = 6,
        BYTES_WRITTEN = 7,
        SOFTWARE_FILES = 8,
        SOFTWARE_BYTES_READ = 9,
        TIMELINE_SOURCE = 10,
        READ_BIN_0 = 11,
        READ_BIN_1 = 12,
        READ_BIN_2 = 13,
        READ_BIN_3 = 14,
        READ_BIN_4 = 15,
        READ_BIN_5 = 16,
        READ_BIN_6 = 17,
        READ_BIN_7 = 18,
        READ_BIN_8 = 19,
        READ_BIN_9 = 20,
        READ_BIN_10 = 21,
        READ_BIN_11 = 22,
        READ_BIN_12 = 23,
        READ_BIN_13 = 24,
        READ_BIN_14 = 25,
        READ_BIN_15 = 26,
        READ_BIN_16 = 27,
        READ_BIN_17 = 28,
        READ_BIN_18 = 29,
        READ_BIN_19 = 30,
        READ_BIN_20 = 31,
        READ_BIN_21 = 32,
        READ_BIN_22 = 33,
        READ_BIN_23 = 34,
        READ_BIN_24 = 35,
        READ_BIN_25 = 36,
        READ_BIN_26 = 37,
        READ_BIN_27 = 38,
        READ_BIN_28 = 39,
        READ_BIN_29 = 40,
        READ_BIN_30 = 41,
        READ_BIN_31 = 42,
    }
    fcounters {
        F_START = 0,
        F_END = 1,
        F_READ_TIME = 2,
        F_WRITE_TIME = 3,
        F_META_TIME = 4,
        F_FIRST_READ = 5,
        F_LAST_READ_END = 6,
        F_BIN_WIDTH = 7,
    }
}
