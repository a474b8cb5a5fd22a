//! The modules this library is built with: the one list the runtime
//! registers (in this order, which is the order they reserve record memory
//! in) and drives through the `Module` trait. A new module is one line
//! here plus its wrapper file (docs/new-module.md).

use darshan_core::Module;

pub static MODULES: &[&dyn Module] = &[
    &darshan_posix::POSIX,
    &darshan_mpiio::MPIIO,
    &darshan_stdio::STDIO,
    &darshan_hdf5::H5F,
    &darshan_hdf5::H5D,
    &darshan_pnetcdf::PNETCDF_FILE,
    &darshan_pnetcdf::PNETCDF_VAR,
    &darshan_heatmap::HEATMAP,
    &darshan_lustre::LUSTRE,
    &darshan_dxt::DXT_POSIX,
    &darshan_dxt::DXT_MPIIO,
    &darshan_bgq::BGQ,
    &darshan_posix_meta::POSIX_META,
    &darshan_io_uring::IO_URING,
    // After IO_URING: the requests still in flight at its shutdown are
    // traced before this freezes.
    &darshan_dxt::DXT_IO_URING,
    &darshan_apmpi::APMPI,
    &darshan_null::NULL,
];
