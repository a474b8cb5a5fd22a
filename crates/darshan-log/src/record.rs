//! In-memory form of one module record, independent of the on-disk
//! version (old versions are up-converted on read).

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DxtSegment {
    pub offset: i64,
    pub length: i64,
    pub start_time: f64,
    pub end_time: f64,
    /// Only in DXT_POSIX v2 / DXT_MPIIO v3 logs.
    pub pthread_id: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LustreComponent {
    /// STRIPE_SIZE, STRIPE_COUNT, STRIPE_PATTERN, FLAGS, EXT_START,
    /// EXT_END, MIRROR_ID
    pub counters: [i64; 7],
    pub pool_name: [u8; 16],
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Extra {
    #[default]
    None,
    /// H5D and PNETCDF_VAR: record id of the owning file.
    FileRecId(u64),
    Dfs {
        pool_uuid: [u8; 16],
        cont_uuid: [u8; 16],
    },
    Daos {
        pool_uuid: [u8; 16],
        cont_uuid: [u8; 16],
        oid_hi: u64,
        oid_lo: u64,
    },
    Lustre {
        components: Vec<LustreComponent>,
        ost_ids: Vec<i64>,
    },
    Dxt {
        shared_record: i64,
        hostname: [u8; 64],
        writes: Vec<DxtSegment>,
        reads: Vec<DxtSegment>,
    },
    Heatmap {
        bin_width: f64,
        write_bins: Vec<i64>,
        read_bins: Vec<i64>,
    },
    Mdhim {
        server_histogram: Vec<i64>,
    },
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record {
    pub module: usize,
    pub id: u64,
    pub rank: i64,
    pub counters: Vec<i64>,
    pub fcounters: Vec<f64>,
    pub extra: Extra,
}

impl Record {
    pub fn new(module: usize) -> Self {
        Record { module, ..Default::default() }
    }

    /// A record of a fixed-layout module with every counter and fcounter
    /// zero (empty vectors for modules without a fixed layout).
    pub fn zeroed(module: usize, id: u64, rank: i64) -> Self {
        let (c, f) = crate::modules::counter_names(module);
        Record { module, id, rank, counters: vec![0; c.len()], fcounters: vec![0.0; f.len()], extra: Extra::None }
    }
}
