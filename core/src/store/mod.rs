//! The store: record memory (`arena`: slices backed by construction), the
//! crash-safe file it may live in (`logmap`), the name table (`names`),
//! the record index (`id_index`) and the handle tables' words
//! (`table_words`, which know whether they were written), the tables taken
//! at their first use (`lazy_words`), the ledger that accounts for them all
//! (`ledger`), the file size limit every file the runtime makes is
//! held to (`fsize`), the descriptor one it may need past (`nofile`), who owns the crash-safe file (`owner`), and the lock every module's records sit behind (`sync`,
//! which publishes itself into the crash-safe file for the live view), and
//! the platform all of it reaches the system through (`platform`).

pub mod arena;
pub mod fixed_vec;
pub mod fsize;
pub mod id_index;
pub mod lazy_words;
pub mod ledger;
pub mod logmap;
pub mod names;
pub mod nofile;
pub mod owner;
pub mod platform;
pub mod shift;
pub mod sync;
pub mod table_words;
